/// `cafectl help`: every command with its flags, and where the endpoints come from.
let help = """
cafectl: operate and drive the Campus Café platform

operator:
  cafectl tail <prefix>... [--pretty] [--count N] [--stream S] [--source X] [--since-seq N]
                                                     one JSON line per message ("" = every topic)
  cafectl publish <topic> <envelope-json>            send one raw message to the bus
  cafectl health [service...] [--live true] [--json] ask every service (or the named ones) for health: a table
                                                     (one line each); --json: one JSON line each, for scripts;
                                                     --live true: exit 0 if each answers, degraded or not
  cafectl backup DIR [service...] [--wait-seconds 900]
                      a consistent copy of each database, taken while the services run, fetched over their
                      sockets into DIR/<instance>.sqlite with DIR/<instance>.manifest.json (operator)
  cafectl restore DIR/<instance>.sqlite --data-dir D  put a stopped service's database back from a copy (new epoch)
  cafectl request <service> <op> [body-json]         send any request; services: \(Endpoints.services.map(\.option.name).joined(separator: ", ")), edge

keys (deployed mode; DIR is the campus key folder every process reads):
  cafectl keys init DIR [--owner UID[:GID]]      a key for every service instance (compose's shards too) and "operator"
  cafectl keys add DIR NAME --role R [--device D --user U | --cafe C | --service S] [--owner UID[:GID]]
                      roles: service (--service), phone (--device and --user), kiosk and kitchen (--cafe), gateway, operator, edge (the HTTP edge's own key)
  cafectl keys revoke DIR NAME                    running processes refuse NAME within a second (at once on SIGHUP)
  cafectl keys list DIR [--json]                  name, role, scope and public key; secret keys are never printed

HTTP edge (operator; the edge's request socket, --edge):
  cafectl tokens issue --kind kiosk|kitchen --cafe C | --kind operator [--label L] [--days 365]
                      a kiosk's, kitchen tablet's or status page's bearer token for the HTTP API, printed once
  cafectl tokens list [--kind user|guest|kiosk|kitchen|operator] [--all true] [--limit 100]     sessions, newest first; never tokens
  cafectl tokens revoke <session-id>              the token stops working at once

phone / kiosk:
  cafectl phone status --device D --authorization whenInUse [--foreground true] [--ranging true] [--precise true]
  cafectl phone sight --device D --uuid U --major N --minor N [--rssi -60] [--power -59] [--count 1]
  cafectl phone fix --device D --lat X --lon Y [--accuracy 10] [--precise true]
  cafectl prefs set closestToMe|<cafe-id> --user U       cafectl prefs get --user U
  cafectl menu --user U [--device D] [--locale en_US]
  cafectl windows --cafe C [--locale L] [--count 8]
  cafectl reserve --cafe C [--start next|<rfc3339>] [--user U] [--locale L]
  cafectl order place --cafe C --reservation R --item id[:qty[:mod,mod]]... [--user U] [--device D]
                      [--payment tok_...] [--channel app|kiosk|appClip] [--key K] [--locale L]
                      [--clip-url URL [--invocation appClipCode|nfc|qrCode|safari|...] [--acquired-at now|<rfc3339>]]
  cafectl order get|pickup|history <order-id> [--locale L]
  cafectl order cancel <order-id> --by customer|kitchen [--user U] [--device D] [--reason R]
  cafectl order claim --device D --user U           a signed-in App Clip guest's orders move to the account
  cafectl notify register --device D [--user U] [--language en] [--locale en_US] [--authorization authorized]
                      authorization: notDetermined|denied|authorized|provisional|ephemeral (App Clip: 8 h from each register)
  cafectl inbox --device D [--since <notification-id>] [--limit 50]
  cafectl reminder set --device D --cafe C --text T [--repeat true]      on arrival at café C; one-shot unless --repeat
  cafectl reminder list --device D [--all true]     cafectl reminder cancel <reminder-id> --device D

kitchen:
  cafectl kds tickets [--cafe C] [--station S] [--all true]     station tickets in screen order, with the link status
  cafectl kds orders [--cafe C] [--all true]                    the expediter's view: whole orders (also: kds expediter)
  cafectl kds counts [--cafe C] [--station S]                   all-day counts of what open tickets still need
  cafectl kds start <ticket-id>    cafectl kds bump <ticket-id>    cafectl kds recall <ticket-id>
  cafectl kds rush <order-id> [--off true]                      put an order ahead of the queue (or back)
  cafectl kds 86 <item-id> [--cafe C] [--reason R]              mark an item sold out at a café (order-service; a kitchen key: its café)
  cafectl kds restore <item-id> [--cafe C]                      put an 86'd item back on the menu
  the screen: kitchen-display --attach tcp://127.0.0.1:7440 [--station grill|expediter]

location (region-monitor):
  cafectl monitor list
  cafectl monitor open <name> --owner O           cafectl monitor close <name> --owner O
  cafectl monitor add <name> <identifier> --owner O [--device D] [--assume satisfied|unsatisfied|unknown]
                      (--beacon <uuid>[/<major>[/<minor>]] [--exit-seconds N] | --circle <lat>,<lon>,<radius> [--hysteresis M] [--dwell S])
  cafectl monitor remove <name> <identifier> --owner O
  cafectl monitor identifiers <name>              cafectl monitor record <name> <identifier> [--device D]
  cafectl nearest <device>                        the café and station of its nearest beacon, cafés by distance
  cafectl location confirm <device> --code <url> (--cafe C | --circle <lat>,<lon>,<radius>) [--at <rfc3339>, default now]
  cafectl walk --device D [--seed 1] [--speed 1] [--from caffe-macs] [--to macs-coffee] [--campus deploy/campus.json]
      replays a seeded phone walk to beacon-ingest, one ingest.report per walk second: car park, 20 s at the counter
      of --from, 20 s at the counter of --to, away (392 s for the demo campus at --speed 1). --campus defaults to
      env CAFE_CAMPUS, else deploy/campus.json. At --speed X the platform must run with its time constants divided
      by X: beacon-ingest --smoothing-window-seconds 10/X and --evidence-seconds 40/X; region-monitor
      --beacon-exit-seconds 30/X, --nearest-freshness-seconds 10/X and --tick-seconds 0.5/X (at --speed 20: 0.5, 2,
      1.5, 0.5, 0.025).

endpoints (flag, else env CAFE_<NAME>_ENDPOINT, else the local default):
  --bus tcp://127.0.0.1:7403  --ingest :7410  --region :7420  --orders :7430  --kitchen :7440  --notify :7450  --edge :7460
  --bus-pub tcp://127.0.0.1:7401  --bus-sub tcp://127.0.0.1:7402  --timeout-ms 5000
  an endpoint may name its server's principal: --region region-monitor-s0@tcp://host:7420 (default: the service's name)
deployed mode (CURVE; the platform runs with --security deployed --keys DIR):
  --keys DIR (env CAFE_KEYS)  --as NAME (env CAFE_AS)    act as principal NAME of key folder DIR on every command;
      the platform holds NAME to its role and scope: a refused request prints auth.forbidden and exits 1. As a
      phone, --device and --user default to its own, and tail to notify.delivery.<its device>. (the bus sends a
      phone nothing else).
common: --pretty prints indented JSON. Exit 0 on success, 1 when a service refuses (code and message on stderr), 2 on usage errors
  (a bad flag, or --keys/--as that name no usable key).
"""
