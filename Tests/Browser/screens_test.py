#!/usr/bin/python3
"""The screens in a real headless Chromium (issue 29), against a running platform.

Run by deploy/browser-test.sh, which starts the platform in its own network namespace and passes:
  --api http://127.0.0.1:8080 --data DIR --bin DIR --shots DIR
Each step saves a screenshot of each page under --shots; a failed check raises, and the script
prints '<passed> passed, <failed> failed' and exits 1 on any failure.
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

args = None
results = {"passed": 0, "failed": 0}
shot_number = [0]
TABLET = (1280, 800)
WALL = (1920, 1080)


def check(ok, what):
    print(("ok      " if ok else "FAILED  ") + what, flush=True)
    results["passed" if ok else "failed"] += 1
    return ok


def http(method, path, token=None, body=None, headers=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(args.api + path, data=data, method=method)
    if token:
        request.add_header("Authorization", "Bearer " + token)
    if body is not None:
        request.add_header("Content-Type", "application/json")
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            text = response.read().decode()
            return response.status, (json.loads(text) if text else None)
    except urllib.error.HTTPError as error:
        text = error.read().decode()
        try:
            return error.code, json.loads(text)
        except ValueError:
            return error.code, text


def cafectl(*words):
    out = subprocess.run([os.path.join(args.bin, "cafectl"), *words, "--keys", os.path.join(args.data, "keys"), "--as", "operator"],
                         capture_output=True, text=True, timeout=30)
    if out.returncode != 0:
        raise RuntimeError("cafectl %s: %s %s" % (" ".join(words), out.stdout, out.stderr))
    return out.stdout


def token(kind, cafe, label):
    cafe = ["--cafe", cafe] if cafe else []
    return json.loads(cafectl("tokens", "issue", "--kind", kind, *cafe, "--label", label))["token"]


order_count = [0]


def kiosk_order(kiosk, items):
    """A guest order at the kiosk's café, over HTTP as a kiosk places it."""
    status, hold = http("POST", "/v1/cafes/caffe-macs/reservations", kiosk, {"locale": "en_US"})
    assert status == 200, (status, hold)
    order_count[0] += 1
    status, order = http("POST", "/v1/cafes/caffe-macs/guest-orders", kiosk,
                         {"reservationId": hold["reservationId"], "locale": "en_US", "items": items},
                         {"Idempotency-Key": "browser-test-%04d" % order_count[0]})
    assert status == 200, (status, order)
    return order["order"]["orderId"]


def phone_order(phone, items):
    """An app order by alice's phone session."""
    status, hold = http("POST", "/v1/cafes/caffe-macs/reservations", phone, {"locale": "en_US"})
    assert status == 200, (status, hold)
    order_count[0] += 1
    status, order = http("POST", "/v1/orders", phone,
                         {"channel": "app", "cafeId": "caffe-macs", "reservationId": hold["reservationId"], "locale": "en_US",
                          "paymentToken": "tok_4242424242424242", "items": items},
                         {"Idempotency-Key": "browser-test-%04d" % order_count[0]})
    assert status == 200, (status, order)
    return order["order"]["orderId"]


def direct_order(key, who, item):
    """An order placed with cafectl straight to order-service over its CURVE key (as a kiosk while
    the edge or Pushpin is down, or as alice's phone key, whose user id is "alice")."""
    keys = ["--keys", os.path.join(args.data, "keys"), "--as", key]
    reserve = subprocess.run([os.path.join(args.bin, "cafectl"), "reserve", "--cafe", "caffe-macs", *who[:2], *keys],
                             capture_output=True, text=True, timeout=30)
    if reserve.returncode != 0:
        raise RuntimeError("cafectl reserve: " + reserve.stdout + reserve.stderr)
    channel = ["--channel", "kiosk"] if key.startswith("kiosk") else ["--payment", "tok_4242424242424242"]
    out = subprocess.run([os.path.join(args.bin, "cafectl"), "order", "place", "--cafe", "caffe-macs", "--reservation",
                          json.loads(reserve.stdout)["reservationId"], *channel, *who, "--item", item, *keys],
                         capture_output=True, text=True, timeout=30)
    if out.returncode != 0:
        raise RuntimeError("cafectl order place: " + out.stdout + out.stderr)
    return json.loads(out.stdout)["order"]["orderId"]


def offline_order():
    return direct_order("kiosk-macs", [], "caesar")


def browser(size):
    options = Options()
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--hide-scrollbars",
                 "--force-device-scale-factor=1", "--window-size=%d,%d" % size, "--disable-background-timer-throttling",
                 "--disable-renderer-backgrounding", "--disable-backgrounding-occluded-windows", "--autoplay-policy=no-user-gesture-required"):
        options.add_argument(flag)
    options.binary_location = "/usr/bin/chromium"
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    viewport(driver, size)
    return driver


def viewport(driver, size):
    """The page's own size exactly (a window's size includes what the browser draws around it)."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": size[0], "height": size[1], "deviceScaleFactor": 1, "mobile": False})


def shot(driver, page, step):
    shot_number[0] += 1
    path = os.path.join(args.shots, "%02d-%s-%s.png" % (shot_number[0], page, step))
    driver.save_screenshot(path)
    return path


def wait(condition, timeout, every=0.05):
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            return value
        time.sleep(every)


def js(driver, script):
    return driver.execute_script(script)


def tickets(driver, order_id):
    return js(driver, "return [...document.querySelectorAll('.card[data-ticket]')].map(c => c.dataset.ticket)"
                      ".filter(t => t.startsWith(%s))" % json.dumps(order_id + ":"))


def all_tickets(driver):
    """Every open ticket the display holds (all pages), from its state."""
    return js(driver, "return window.kds && kds.snapshot ? kds.snapshot.tickets.tickets.filter(t => t.state === 'new' || t.state === 'inProgress').map(t => t.ticketId) : null")


def banner(driver):
    return js(driver, "const b = document.getElementById('banner'); return b && !b.hidden ? b.textContent : ''")


def board_column(driver, order_id):
    return js(driver, "const e = document.querySelector('.entry[data-order=%s]'); return e ? e.closest('.column').classList.contains('ready') ? 'ready' : 'preparing' : null"
              % json.dumps(order_id))


def board_entries(driver):
    return js(driver, "return [...document.querySelectorAll('.entry[data-order]')].map(e => e.dataset.order)")


def process(name):
    """The pid and command line of the platform's `name` process, from run-local's pid file."""
    with open(os.path.join(args.data, "pids")) as f:
        pids = [int(p) for p in f.read().split()]
    for pid in pids:
        try:
            with open("/proc/%d/cmdline" % pid, "rb") as f:
                argv = [a.decode() for a in f.read().split(b"\0") if a]
        except OSError:
            continue
        if argv and os.path.basename(argv[0]) == name:
            return pid, argv
    raise RuntimeError("no running %s in %s/pids" % (name, args.data))


def stop(name):
    pid, argv = process(name)
    os.kill(pid, signal.SIGTERM)
    wait(lambda: not os.path.exists("/proc/%d" % pid) or open("/proc/%d/stat" % pid).read().split()[2] == "Z", 15)
    return argv


def restart(name, argv):
    log = open(os.path.join(args.data, "logs", name + ".log"), "ab")
    child = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
    with open(os.path.join(args.data, "pids"), "a") as f:
        f.write("%d\n" % child.pid)


def outage(name, kds, board, ops):
    """Stops `name`, sees the banner, places orders meanwhile, restarts it, sees them once."""
    stopped_at = time.monotonic()
    argv = stop(name)
    text = wait(lambda: banner(kds), 8)
    seen = time.monotonic() - stopped_at
    check(bool(text) and text.startswith("disconnected since ") and seen <= 5.0,
          "%s stopped: the kitchen display shows %r after %.1f s (at most 5 s)" % (name, text, seen))
    check(bool(wait(lambda: banner(board), 3)), "%s stopped: the pickup board shows the banner too" % name)
    check(bool(wait(lambda: banner(ops), 3)), "%s stopped: the status page shows the banner too" % name)
    shot(ops, "status", name + "-stopped")
    shot(kds, "kitchen", name + "-stopped")
    shot(board, "board", name + "-stopped")
    placed = [offline_order() for _ in range(3)]
    time.sleep(1.5)
    restart(name, argv)
    gone = wait(lambda: not banner(kds) and all(len(tickets_everywhere(kds, o)) == 1 for o in placed), 40, 0.2)
    counts = {o: len(tickets_everywhere(kds, o)) for o in placed}
    check(bool(gone), "%s restarted: the banner is gone and each of the %d orders placed meanwhile is on the display once: %s"
          % (name, len(placed), counts))
    every = all_tickets(kds) or []
    check(len(every) == len(set(every)), "%s restarted: no ticket twice (%d open tickets)" % (name, len(every)))
    board_ok = wait(lambda: not banner(board) and all(board_column(board, o) == "preparing" for o in placed), 20, 0.2)
    entries = board_entries(board)
    check(bool(board_ok) and len(entries) == len(set(entries)), "%s restarted: the board shows each of them once, preparing" % name)
    check(bool(wait(lambda: not banner(ops), 10)), "%s restarted: the status page's banner is gone" % name)
    shot(kds, "kitchen", name + "-restarted")
    shot(board, "board", name + "-restarted")
    return placed


def tickets_everywhere(kds, order_id):
    return [t for t in (all_tickets(kds) or []) if t.startswith(order_id + ":")]


def press(driver, *keys):
    body = driver.find_element(By.TAG_NAME, "body")
    for key in keys:
        body.send_keys(key)
        time.sleep(0.05)


def position(kds, ticket_id):
    """The ticket's number on the current page, or None."""
    return js(kds, "const c = document.querySelector('.card[data-ticket=%s]'); return c ? c.querySelector('.pos').textContent : null"
              % json.dumps(ticket_id))


def main():
    global args
    parser = argparse.ArgumentParser()
    parser.add_argument("--api", required=True)
    parser.add_argument("--data", required=True)
    parser.add_argument("--bin", required=True)
    parser.add_argument("--shots", required=True)
    args = parser.parse_args()
    os.makedirs(args.shots, exist_ok=True)

    kitchen = token("kitchen", "caffe-macs", "browser-kds")
    other = token("kitchen", "macs-coffee", "browser-other-cafe")
    kiosk = token("kiosk", "caffe-macs", "browser-kiosk")
    operator = token("operator", None, "browser-status")
    id_token = subprocess.run(["deploy/local-issuer.sh", "token", os.path.join(args.data, "issuer"), "alice", "n-browser"],
                              capture_output=True, text=True, check=True).stdout.strip()
    status, session = http("POST", "/v1/sessions", body={"idToken": id_token, "nonce": "n-browser", "deviceId": "phone-1"})
    assert status == 200, (status, session)
    phone = session["token"]

    # Refused callers, over HTTP: another café's kitchen naming caffe-macs; a kiosk; no session.
    status, problem = http("GET", "/v1/screens/kitchen?cafeId=caffe-macs", other)
    check(status == 403, "another café's kitchen token asking for caffe-macs's kitchen screen: %s" % status)
    status, _ = http("GET", "/v1/screens/events?cafeId=caffe-macs", other)
    check(status == 403, "another café's kitchen token asking for caffe-macs's events: %s" % status)
    status, _ = http("GET", "/v1/screens/pickup", kiosk)
    check(status == 403, "a kiosk token asking for the pickup board's snapshot: %s" % status)
    status, _ = http("GET", "/v1/screens/pickup")
    check(status == 401, "no token: %s" % status)
    status, _ = http("GET", "/v1/screens/status", kitchen)
    check(status == 403, "a kitchen token asking for the status page: %s" % status)
    status, _ = http("GET", "/v1/screens/kitchen", operator)
    check(status == 403, "an operator's status token asking for a kitchen screen: %s" % status)
    status, _ = http("GET", "/v1/kitchen/tickets", operator)
    check(status == 403, "an operator's status token asking for a kitchen op: %s" % status)

    drivers = []
    try:
        kds = browser(TABLET)
        drivers.append(kds)
        board = browser(WALL)
        drivers.append(board)
        stranger = browser(TABLET)
        drivers.append(stranger)
        ops = browser(WALL)
        drivers.append(ops)
        ops.get(args.api + "/status#token=" + operator)
        kds.get(args.api + "/kitchen#token=" + kitchen)
        board.get(args.api + "/board#token=" + kitchen)
        stranger.get(args.api + "/kitchen#token=" + other)
        for driver, name in ((kds, "kitchen"), (board, "board"), (stranger, "other-cafe-kitchen"), (ops, "status")):
            ready = wait(lambda: js(driver, "return !!(window.liveState && liveState.lastHeartbeat && !liveState.down && liveState.seq >= 0 && !liveState.reloading)"), 10)
            check(bool(ready), "%s page loaded its snapshot and hears the heartbeat" % name)
            shot(driver, name, "start")

        # A placed order's tickets appear within 1 s.
        started = time.monotonic()
        first = kiosk_order(kiosk, [{"itemId": "burger", "quantity": 1, "modifiers": ["cheese"]}, {"itemId": "caesar", "quantity": 1}])
        shown = wait(lambda: len(tickets(kds, first)) == 2, 5, 0.02)
        latency = time.monotonic() - started
        check(bool(shown) and latency <= 1.0, "a kiosk order's two tickets are on the kitchen display %.2f s after it was placed (at most 1 s)" % latency)
        check(bool(wait(lambda: board_column(board, first) == "preparing", 3)), "the pickup board shows it under Preparing")
        signed_in = phone_order(phone, [{"itemId": "margherita", "quantity": 1}])
        check(bool(wait(lambda: len(tickets(kds, signed_in)) == 1, 3)), "an app order over HTTP (signed in, user id derived) is on the display")
        alice = direct_order("phone-alice", ["--user", "alice", "--device", "phone-1"], "margherita")
        check(bool(wait(lambda: len(tickets(kds, alice)) == 1, 3)), "alice's app order (user id alice) is on the display")
        who = "const e = document.querySelector('.entry[data-order=%s] .who'); return e ? e.textContent : null"
        label = js(board, who % json.dumps(alice)) if wait(lambda: board_column(board, alice), 3) else "missing"
        check(label == "A.", "the board names alice's order by number and initial only: %r" % label)
        label = js(board, who % json.dumps(signed_in)) if wait(lambda: board_column(board, signed_in), 3) else "missing"
        check(label is None, "a derived user id says nothing, so that order shows by number only: %r" % label)
        check(board_column(board, first) == "preparing" and js(board, who % json.dumps(first)) is None, "a kiosk guest's order shows by number only")
        board_text = board.find_element(By.TAG_NAME, "body").text
        check("Margherita" not in board_text and "alice" not in board_text.lower() and "burger" not in board_text.lower(),
              "the board shows no items and no names")
        shot(kds, "kitchen", "order-placed")
        shot(board, "board", "order-placed")
        check(not (js(stranger, "return document.querySelectorAll('.card').length") or 0), "another café's kitchen sees none of caffe-macs's tickets")
        shot(stranger, "other-cafe-kitchen", "order-placed")

        # Keys bump: digits pick the ticket, Enter bumps it.
        for station in ("grill", "salad"):
            ticket = first + ":" + station
            pos = position(kds, ticket)
            press(kds, *list(pos), Keys.ENTER)
            time.sleep(0.9)  # past the two-digit window, so the next pick starts afresh
            gone = wait(lambda: not tickets(kds, first) or ticket not in tickets(kds, first), 3)
            check(bool(gone), "keys %s then Enter bump the %s ticket off the display" % (pos, station))
        check(bool(wait(lambda: board_column(board, first) == "ready", 3)), "both bumped: the board moves the order to Ready")
        shot(kds, "kitchen", "bumped-by-keys")
        shot(board, "board", "ready")
        # '-' recalls the last bumped ticket; Enter on it bumps it again.
        press(kds, "-")
        back = wait(lambda: tickets(kds, first) == [first + ":salad"], 3)
        check(bool(back), "'-' recalls the salad ticket onto the display")
        check(bool(wait(lambda: board_column(board, first) == "preparing", 3)), "recalled: the board moves the order back to Preparing")
        shot(kds, "kitchen", "recalled")
        press(kds, *list(position(kds, first + ":salad")), Keys.ENTER)
        check(bool(wait(lambda: board_column(board, first) == "ready", 3)), "bumped again: Ready again")
        # Picked up at the counter: off the board.
        status, _ = http("POST", "/v1/orders/%s/pickup" % first, kitchen)
        check(status == 200, "pickup over HTTP: %s" % status)
        check(bool(wait(lambda: board_column(board, first) is None, 3)), "picked up: the order leaves the board")
        shot(board, "board", "picked-up")

        # More than a page: at most 20 cards, the arrows page.
        for _ in range(12):
            kiosk_order(kiosk, [{"itemId": "burger", "quantity": 1}, {"itemId": "caesar", "quantity": 2}])
        wait(lambda: len(all_tickets(kds) or []) >= 25, 5)
        cards = js(kds, "return document.querySelectorAll('.card').length")
        check(cards == 20, "the first page holds 20 tickets of %d" % len(all_tickets(kds) or []))
        shot(kds, "kitchen", "page-1")
        press(kds, Keys.ARROW_RIGHT)
        page = js(kds, "return document.getElementById('page').textContent")
        check("page 2/" in page, "the right arrow pages on: %r" % page)
        shot(kds, "kitchen", "page-2")
        press(kds, Keys.ARROW_LEFT)
        viewport(kds, WALL)
        time.sleep(0.5)
        shot(kds, "kitchen-24in", "full")
        viewport(kds, TABLET)
        viewport(board, TABLET)
        time.sleep(0.5)
        shot(board, "board-10in", "full")
        viewport(board, WALL)
        js(kds, "document.querySelector('.view:last-child').click()")
        time.sleep(0.5)
        shot(kds, "kitchen", "expediter")
        js(kds, "document.querySelector('.view').click()")

        # The status page: every process, live; a process that stops is shown and highlighted.
        rows = wait(lambda: js(ops, "return statusPage.previous ? statusPage.previous.processes.map(p => p.service + ':' + p.status) : null"), 5)
        services = {r.split(":")[0] for r in rows or []}
        check({"bus", "edge", "beacon-ingest", "region-monitor", "order-service", "kitchen-display", "notification-service"} <= services
              and all(r.endswith(":ok") for r in rows), "the status page lists every process, each ok: %s" % rows)
        shot(ops, "status", "all-ok")
        argv = stop("notification-service")
        down = wait(lambda: js(ops, "return statusPage.previous.processes.some(p => p.service === 'notification-service' && p.status === 'unreachable')"
                                    " && document.querySelector('tr.last-change') !== null"), 8)
        check(bool(down), "notification-service stopped: the status page shows it unreachable, the last change highlighted")
        shot(ops, "status", "notification-service-stopped")
        restart("notification-service", argv)
        back = wait(lambda: js(ops, "return statusPage.previous.processes.every(p => p.status === 'ok')"), 15)
        check(bool(back), "notification-service restarted: every process ok again")
        shot(ops, "status", "notification-service-back")

        # The edge stops, then Pushpin: the banner within 5 s; after the restart every order placed
        # meanwhile is there once.
        outage("edge", kds, board, ops)
        outage("pushpin", kds, board, ops)
        check(not (js(stranger, "return document.querySelectorAll('.card').length") or 0), "after it all, another café's kitchen still sees nothing of caffe-macs")
        shot(stranger, "other-cafe-kitchen", "end")
    finally:
        for driver in drivers:
            try:
                driver.quit()
            except Exception:
                pass
    print("screenshots: " + args.shots)
    print("%d passed, %d failed" % (results["passed"], results["failed"]))
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
