#!/usr/bin/python3
"""A strict local APNs peer for notification-service's tests (issue 27): HTTP/2 over TLS,
token auth checked the way APNs documents it, answers in APNs' JSON, and scriptable faults.

Checks, in this order, the first failure answering: apns-id a lower-case UUID; POST; apns-topic
present; apns-collapse-id at most 64 bytes; apns-priority 1, 5 or 10 and apns-push-type known;
apns-expiration a whole number; path /3/device/<hex token> (64 digits; a Live Activity's 16-256); a bearer token whose kid is known,
whose ES256 signature is the raw 64-byte r||s and verifies, and whose iat is younger than an
hour; the topic allowed (a liveactivity push's with ".push-type.liveactivity"); the payload non-empty and at most 4,096 bytes.

Faults come from a JSON file read at every request (tests rewrite it while the peer runs):
  {"tokens": {"<device token>": ["410", "429", "500", "503", "413", "stall", "drop", "200"]},
   "goaway_after": N, "delay_ms": M}
Each request to a token takes the next action of its list (then 200s). "stall" never answers
the stream, "drop" closes the connection, "goaway_after" sends GOAWAY after N requests on a
connection and closes it; "delay_ms" holds every answer that long.

Every request is recorded as one JSON line in --record (status, reason, connection, time, headers
less the token, the token's kid and iat, and the payload), so tests assert on what it saw.
Usage: apns_peer.py --cert C --key K --port-file F --record R --faults J --topics a,b KID=pub.pem ...
"""
import argparse, base64, json, os, re, socket, ssl, threading, time

import h2.config, h2.connection, h2.events, h2.exceptions, h2.settings
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
PATH = re.compile(r"^/3/device/([0-9a-fA-F]{64}|[0-9a-fA-F]{16,256})$")
PUSH_TYPES = {"alert", "background", "liveactivity", "voip", "complication", "fileprovider", "mdm", "location", "pushtotalk"}

lock = threading.Lock()
used = {}          # token -> how many actions of its list were taken
connections = [0]  # connections accepted
last_timestamp = {}  # Live Activity token -> the newest aps.timestamp accepted


def b64(segment):
    return base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4))


def check(headers, body, args):
    """(status, reason) of APNs' checks; None when the request is well formed."""
    if not UUID.match(headers.get("apns-id", "")):
        return 400, "BadMessageId"
    if headers.get(":method") != "POST":
        return 405, "MethodNotAllowed"
    if not headers.get("apns-topic"):
        return 400, "MissingTopic"
    if len(headers.get("apns-collapse-id", "").encode()) > 64:
        return 400, "BadCollapseId"
    if headers.get("apns-priority", "10") not in ("1", "5", "10"):
        return 400, "BadPriority"
    if headers.get("apns-push-type") not in PUSH_TYPES:
        return 400, "InvalidPushType"
    if not re.match(r"^[0-9]+$", headers.get("apns-expiration", "0")):
        return 400, "BadExpirationDate"
    if not PATH.match(headers.get(":path", "")):
        return (400, "BadDeviceToken") if headers.get(":path", "").startswith("/3/device/") else (404, "BadPath")
    auth = headers.get("authorization", "")
    if not auth.startswith("bearer "):
        return 403, "MissingProviderToken"
    try:
        head64, claims64, sig64 = auth[7:].split(".")
        header, claims, signature = json.loads(b64(head64)), json.loads(b64(claims64)), b64(sig64)
    except Exception:
        return 403, "InvalidProviderToken"
    key = args.keys.get(header.get("kid"))
    if header.get("alg") != "ES256" or key is None or len(signature) != 64:
        return 403, "InvalidProviderToken"
    der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
    try:
        key.verify(der, (head64 + "." + claims64).encode(), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        return 403, "InvalidProviderToken"
    iat = claims.get("iat")
    if not isinstance(iat, int) or not isinstance(claims.get("iss"), str) or iat > time.time() + 60:
        return 403, "InvalidProviderToken"
    if time.time() - iat >= 3600:
        return 403, "ExpiredProviderToken"
    topic = headers["apns-topic"]
    if headers.get("apns-push-type") == "liveactivity":
        # A Live Activity's topic is the app's with this suffix, and nothing else.
        if not topic.endswith(".push-type.liveactivity"):
            return 400, "TopicDisallowed"
        topic = topic[:-len(".push-type.liveactivity")]
    if topic not in args.topics:
        return 400, "TopicDisallowed"
    if not body:
        return 400, "PayloadEmpty"
    if len(body) > 4096:
        return 413, "PayloadTooLarge"
    return None


def faults(args):
    try:
        with open(args.faults) as f:
            return json.load(f)
    except Exception:
        return {}


def record(args, entry):
    with lock:
        with open(args.record, "a") as f:
            f.write(json.dumps(entry) + "\n")


def answer(conn, sock, stream, status, reason, extra=None):
    body = b""
    if reason:
        payload = {"reason": reason}
        payload.update(extra or {})
        body = json.dumps(payload).encode()
    conn.send_headers(stream, [(":status", str(status)), ("content-length", str(len(body)))], end_stream=not body)
    if body:
        conn.send_data(stream, body, end_stream=True)
    sock.sendall(conn.data_to_send())


def serve(sock, args):
    with lock:
        connections[0] += 1
        number = connections[0]
    conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=False, header_encoding="utf-8"))
    conn.initiate_connection()
    conn.update_settings({h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: 1000})
    sock.sendall(conn.data_to_send())
    streams, served = {}, 0
    try:
        while True:
            data = sock.recv(65536)
            if not data:
                return
            for event in conn.receive_data(data):
                if isinstance(event, h2.events.RequestReceived):
                    streams[event.stream_id] = (dict(event.headers), bytearray())
                elif isinstance(event, h2.events.DataReceived):
                    streams[event.stream_id][1].extend(event.data)
                    conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                elif isinstance(event, h2.events.StreamEnded):
                    headers, body = streams.pop(event.stream_id)
                    served += 1
                    if not handle(conn, sock, event.stream_id, headers, bytes(body), number, args):
                        return
                    plan = faults(args)
                    if plan.get("goaway_after") and served >= plan["goaway_after"]:
                        conn.close_connection(last_stream_id=event.stream_id)
                        sock.sendall(conn.data_to_send())
                        return
            sock.sendall(conn.data_to_send())
    except (OSError, h2.exceptions.ProtocolError):
        return
    finally:
        try:
            sock.close()
        except OSError:
            pass


def handle(conn, sock, stream, headers, body, number, args):
    """Answers one request; False when the connection is to be dropped."""
    refused = check(headers, body, args)
    token = (PATH.match(headers.get(":path", "")) or [None, None])[1]
    entry = {"connection": number, "stream": stream, "token": token, "t": time.time(),
             "headers": {k: v for k, v in headers.items() if k != "authorization"}}
    try:
        entry["payload"] = json.loads(body)
    except Exception:
        entry["payload"] = None
    try:
        head64, claims64, _ = headers.get("authorization", "")[7:].split(".")
        entry["kid"], entry["iat"] = json.loads(b64(head64)).get("kid"), json.loads(b64(claims64)).get("iat")
    except Exception:
        pass
    # iOS drops, silently, an update whose timestamp is not after the last one: record it so.
    aps = entry["payload"].get("aps") if isinstance(entry["payload"], dict) else None
    if refused is None and headers.get("apns-push-type") == "liveactivity" and isinstance(aps, dict):
        with lock:
            last = last_timestamp.get(token)
            entry["stale"] = last is not None and not (isinstance(aps.get("timestamp"), int) and aps["timestamp"] > last)
            last_timestamp[token] = max(last or 0, aps.get("timestamp") or 0)
    plan = faults(args)
    action = "200"
    if refused is None and token:
        with lock:
            actions = plan.get("tokens", {}).get(token.lower(), [])
            taken = used.get(token.lower(), 0)
            if taken < len(actions):
                action = actions[taken]
                used[token.lower()] = taken + 1
    if plan.get("delay_ms"):
        time.sleep(plan["delay_ms"] / 1000)
    if refused is not None:
        status, reason = refused
    elif action in ("stall", "drop"):
        entry.update(status=0, reason=action)
        record(args, entry)
        return action == "stall"
    else:
        status = int(action)
        reason = {200: None, 410: "Unregistered", 429: "TooManyRequests", 500: "InternalServerError", 503: "ServiceUnavailable",
                  413: "PayloadTooLarge", 403: "InvalidProviderToken", 400: "BadDeviceToken"}.get(status, "InternalServerError")
    entry.update(status=status, reason=reason)
    record(args, entry)
    answer(conn, sock, stream, status, reason, {"timestamp": int(time.time() * 1000)} if status == 410 else None)
    return True


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cert", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--record", required=True)
    parser.add_argument("--faults", required=True)
    parser.add_argument("--topics", required=True)
    parser.add_argument("key_files", nargs="+", help="KID=public-key.pem")
    args = parser.parse_args()
    args.topics = set(args.topics.split(","))
    args.keys = {}
    for item in args.key_files:
        kid, path = item.split("=", 1)
        with open(path, "rb") as f:
            args.keys[kid] = serialization.load_pem_public_key(f.read())
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(args.cert, args.key)
    context.set_alpn_protocols(["h2"])
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    with open(args.port_file + ".tmp", "w") as f:
        f.write(str(listener.getsockname()[1]))
    os.rename(args.port_file + ".tmp", args.port_file)
    while True:
        raw, _ = listener.accept()
        try:
            tls = context.wrap_socket(raw, server_side=True)
        except (ssl.SSLError, OSError):
            raw.close()
            continue
        if tls.selected_alpn_protocol() != "h2":
            tls.close()
            continue
        threading.Thread(target=serve, args=(tls, args), daemon=True).start()


if __name__ == "__main__":
    main()
