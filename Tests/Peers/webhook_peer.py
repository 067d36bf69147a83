#!/usr/bin/python3
"""A strict local webhook receiver for notification-service's tests (issue 27): HTTPS (HTTP/1.1)
that checks the Standard Webhooks signature with the shared secret and records what it accepted.

Checks, in this order, the first failure answering 400 (401 for the signature): POST; the path
given; content-type application/json; webhook-id, webhook-timestamp (whole seconds) and
webhook-signature present; a "v1," signature equal to base64 HMAC-SHA256 of "id.timestamp.body"
under the secret; a body that is a JSON object of at most 64 KiB.

Faults come from a JSON file read at every request (tests rewrite it while the peer runs):
  {"actions": ["500", "410", "429:2", "302", "stall", "200"]}
Each accepted request takes the next action (then 200s); "429:N" answers 429 with Retry-After: N;
a 3xx answers with a Location on this same peer, path /elsewhere (a client that followed it would
be recorded there, answered 400); "stall" never answers (recorded with status 0). Every request is recorded as one JSON
line in --record: path, status, webhook-id, timestamp, whether it verified, body.
Usage: webhook_peer.py --cert C --key K --port-file F --record R --faults J --path /hook --secret whsec_...
"""
import argparse, base64, hashlib, hmac, json, os, ssl, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

parser = argparse.ArgumentParser()
for name in ("--cert", "--key", "--port-file", "--record", "--faults", "--path", "--secret"):
    parser.add_argument(name, required=True)
args = parser.parse_args()
secret = base64.b64decode(args.secret.removeprefix("whsec_"))
lock = threading.Lock()
taken = 0


def next_action():
    global taken
    try:
        with open(args.faults) as f:
            actions = json.load(f).get("actions", [])
    except (OSError, ValueError):
        actions = []
    with lock:
        action = actions[taken] if taken < len(actions) else "200"
        taken += 1
    return action


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def answer(self, status, record, headers=()):
        record["status"] = status
        with lock, open(args.record, "a") as f:
            f.write(json.dumps(record) + "\n")
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("content-length", "0")
        self.end_headers()

    def do_POST(self):
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(min(length, 65_537))
        wid, ts, sig = (self.headers.get(h) for h in ("webhook-id", "webhook-timestamp", "webhook-signature"))
        record = {"id": wid, "timestamp": ts, "time": time.time(), "verified": False, "path": self.path}
        if self.path != args.path or self.headers.get("content-type") != "application/json":
            return self.answer(400, record)
        if not wid or not ts or not ts.isdigit() or not sig:
            return self.answer(400, record)
        expected = "v1," + base64.b64encode(hmac.new(secret, f"{wid}.{ts}.".encode() + body, hashlib.sha256).digest()).decode()
        if not any(hmac.compare_digest(expected, s) for s in sig.split(" ")):
            return self.answer(401, record)
        record["verified"] = True
        try:
            payload = json.loads(body)
            assert isinstance(payload, dict) and len(body) <= 65_536
        except (ValueError, AssertionError):
            return self.answer(400, record)
        record["body"] = payload
        action = next_action()
        if action == "stall":
            record["status"] = 0
            with lock, open(args.record, "a") as f:
                f.write(json.dumps(record) + "\n")
            time.sleep(3600)
            return
        status, _, retry_after = action.partition(":")
        headers = [("Retry-After", retry_after)] if retry_after else []
        if 300 <= int(status) < 400:
            headers.append(("Location", f"https://127.0.0.1:{server.server_address[1]}/elsewhere"))
        self.answer(int(status), record, headers)


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(args.cert, args.key)
server.socket = context.wrap_socket(server.socket, server_side=True)
with open(args.port_file + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.replace(args.port_file + ".tmp", args.port_file)
server.serve_forever()
