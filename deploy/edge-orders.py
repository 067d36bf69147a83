#!/usr/bin/env python3
"""Open-loop HTTP load for new orders: what h2load cannot do, since every order needs its own
reservation and its own Idempotency-Key.

Arrivals come at a fixed rate whatever the answers do (open loop): arrival k is due at
start + k / rate and its latency is taken from then, so a slow answer delays no later arrival
and hides nothing (no coordinated omission). Each arrival reserves a place and then places an
order through Pushpin -> edge -> order-service; the report gives both steps and the whole.
`--ceiling URL` sends the same two requests per arrival, at the same rate, to Pushpin's own
`test` route instead: the figure without us, from the same tool in the same run.

    edge-orders.py --base http://127.0.0.1:8080 --sessions FILE --rate 100 --seconds 20
    edge-orders.py --ceiling http://127.0.0.1:8090/ --rate 100 --seconds 20

FILE has one line per phone: "<bearer token> <device id>" (deploy/edge-bench.sh makes it).
A measurement, not a test: it prints figures and exits 0 unless it could not run at all.
"""
import argparse
import asyncio
import json
import sys
import time
import urllib.parse


class Connection:
    """One keep-alive HTTP/1.1 connection; a request at a time."""

    def __init__(self, reader, writer):
        self.reader, self.writer = reader, writer

    async def request(self, method, path, host, headers, body):
        head = [f"{method} {path} HTTP/1.1", f"Host: {host}", f"Content-Length: {len(body)}"]
        head += [f"{k}: {v}" for k, v in headers]
        self.writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + body)
        status_line = await self.reader.readline()
        if not status_line:
            raise ConnectionError("closed")
        status = int(status_line.split()[1])
        length, chunked = 0, False
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b"\n", b""):
                break
            name, _, value = line.decode("latin-1").partition(":")
            name = name.strip().lower()
            if name == "content-length":
                length = int(value.strip())
            elif name == "transfer-encoding" and "chunked" in value.lower():
                chunked = True
        if chunked:
            data = b""
            while True:
                size = int((await self.reader.readline()).strip(), 16)
                if size == 0:
                    await self.reader.readline()
                    break
                data += await self.reader.readexactly(size)
                await self.reader.readline()
        else:
            data = await self.reader.readexactly(length)
        return status, data


class Pool:
    """Idle connections to one host; a new one whenever all are busy (open loop)."""

    def __init__(self, url):
        parts = urllib.parse.urlsplit(url)
        self.host, self.port = parts.hostname, parts.port or 80
        self.idle, self.opened = [], 0

    async def take(self):
        if self.idle:
            return self.idle.pop()
        reader, writer = await asyncio.open_connection(self.host, self.port)
        self.opened += 1
        return Connection(reader, writer)

    async def call(self, method, path, headers, body):
        conn = await self.take()
        try:
            answer = await conn.request(method, path, f"{self.host}:{self.port}", headers, body)
        except Exception:
            conn.writer.close()
            raise
        self.idle.append(conn)
        return answer


def percentile(values, p):
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p))]


async def run(args):
    pool = Pool(args.ceiling or args.base)
    phones = []
    if not args.ceiling:
        with open(args.sessions) as f:
            phones = [line.split() for line in f if line.strip()]
        if not phones:
            sys.exit("edge-orders.py: no sessions")
    json_header = ("Content-Type", "application/json")
    reserve_ms, order_ms, total_ms, failures, samples = [], [], [], {}, {}
    ceiling_path = urllib.parse.urlsplit(args.ceiling).path or "/" if args.ceiling else None

    async def arrival(k, due):
        try:
            if args.ceiling:
                t0 = time.monotonic()
                s1, _ = await pool.call("POST", ceiling_path, [json_header], b'{"locale":"en_US"}')
                t1 = time.monotonic()
                s2, _ = await pool.call("POST", ceiling_path, [json_header], b"{}" * 100)
                ok = s1 == 200 and s2 == 200
                status = f"{s1}/{s2}"
            else:
                token, device = phones[k % len(phones)]
                auth = ("Authorization", f"Bearer {token}")
                t0 = time.monotonic()
                s1, body = await pool.call("POST", f"/v1/cafes/{args.cafe}/reservations", [auth, json_header],
                                           b'{"locale":"en_US"}')
                t1 = time.monotonic()
                if s1 != 200:
                    samples.setdefault(f"reserve {s1}", body[:300].decode("utf-8", "replace"))
                    failures[f"reserve {s1}"] = failures.get(f"reserve {s1}", 0) + 1
                    return
                reservation = json.loads(body)["reservationId"]
                order = {"channel": "app", "cafeId": args.cafe, "reservationId": reservation, "locale": "en_US",
                         "paymentToken": "tok_4242424242424242", "items": [{"itemId": args.item, "quantity": 1}]}
                s2, answer = await pool.call("POST", "/v1/orders",
                                        [auth, json_header, ("Idempotency-Key", f"{args.run}-{k:08d}")],
                                        json.dumps(order).encode())
                ok = s2 in (200, 201)
                status = f"order {s2}"
                if not ok:
                    samples.setdefault(status, answer[:300].decode("utf-8", "replace"))
            t2 = time.monotonic()
            if not ok:
                failures[status] = failures.get(status, 0) + 1
                return
            reserve_ms.append((t1 - due) * 1000)
            order_ms.append((t2 - t1) * 1000)
            total_ms.append((t2 - due) * 1000)
        except Exception as error:  # a refused or dropped connection is a failure, counted
            failures[type(error).__name__] = failures.get(type(error).__name__, 0) + 1

    start = time.monotonic() + 0.2
    count = int(args.rate * args.seconds)
    tasks = []
    for k in range(count):
        due = start + k / args.rate
        delay = due - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        tasks.append(asyncio.ensure_future(arrival(k, due)))
    lag = time.monotonic() - (start + (count - 1) / args.rate)
    await asyncio.gather(*tasks)
    elapsed = time.monotonic() - start
    name = "ceiling (Pushpin's test route)" if args.ceiling else "new orders"
    fmt = lambda v: f"p50 {percentile(v, 0.5):.1f} ms, p99 {percentile(v, 0.99):.1f} ms"
    print(f"{name} at {args.rate:g}/s for {args.seconds:g} s: {len(total_ms)} of {count} done in {elapsed:.1f} s, "
          f"failed {sum(failures.values())} {failures or ''}; connections {pool.opened}; sender lag {lag * 1000:.0f} ms")
    for status, sample in samples.items():
        print(f"  {status}, for example: {sample}")
    print(f"  first request (from due) {fmt(reserve_ms)}; second request {fmt(order_ms)}; both (from due) {fmt(total_ms)}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base", default="http://127.0.0.1:8080")
    parser.add_argument("--ceiling", help="Pushpin test route URL: send the same load there instead")
    parser.add_argument("--sessions", help="file of '<token> <device>' lines")
    parser.add_argument("--cafe", default="caffe-macs")
    parser.add_argument("--item", default="caesar")
    parser.add_argument("--rate", type=float, default=50)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--run", default=f"bench-{int(time.time())}", help="prefix of the Idempotency-Keys")
    args = parser.parse_args()
    if not args.ceiling and not args.sessions:
        parser.error("--sessions is needed unless --ceiling is given")
    if not (0 < args.rate <= 10_000 and 0 < args.seconds <= 3_600):
        parser.error("rate must be in (0, 10000] and seconds in (0, 3600]")
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
