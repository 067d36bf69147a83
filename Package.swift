// swift-tools-version: 6.0
import PackageDescription

// No package dependencies: libzmq, SQLite and OpenSSL's libcrypto come in as system libraries (Debian
// libzmq3-dev, libsqlite3-dev, libssl-dev); everything else is the toolchain.

/// A service is three targets: `<Prefix>Core` (pure rules, clock injected, no sockets or SQL) in
/// `Services/<folder>/Core`, `<Prefix>Server` (a library: the service, its store holding all of its
/// SQL, its ops; tested in-process) in `Services/<folder>/Server`, and the executable in
/// `Services/<folder>/Main` (read settings, build, run).
func service(_ folder: String, executable: String, prefix: String,
             coreDependencies: [Target.Dependency] = [], serverDependencies: [Target.Dependency] = []) -> [Target] {
    let core = "\(prefix)Core", server = "\(prefix)Server"
    return [
        .target(name: core, dependencies: ["Messages", "Policy", "Campus"] + coreDependencies, path: "Services/\(folder)/Core"),
        .target(name: server, dependencies: [.target(name: core), "ServiceRuntime", "Messages", "Policy", "Campus", "ZeroMQ", "SQLite", "Metrics"] + serverDependencies,
                path: "Services/\(folder)/Server"),
        .executableTarget(name: executable, dependencies: [.target(name: server), .target(name: core), "ServiceRuntime", "Campus"],
                          path: "Services/\(folder)/Main"),
    ]
}

let package = Package(
    name: "CampusCafe",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "bus", targets: ["bus"]),
        .executable(name: "beacon-ingest", targets: ["beacon-ingest"]),
        .executable(name: "region-monitor", targets: ["region-monitor"]),
        .executable(name: "order-service", targets: ["order-service"]),
        .executable(name: "kitchen-display", targets: ["kitchen-display"]),
        .executable(name: "notification-service", targets: ["notification-service"]),
        .executable(name: "edge", targets: ["edge"]),
        .executable(name: "cafectl", targets: ["cafectl"]),
        .executable(name: "load-test", targets: ["load-test"]),
    ],
    targets: [
        .systemLibrary(name: "CZeroMQ", path: "Shared/CZeroMQ", pkgConfig: "libzmq", providers: [.apt(["libzmq3-dev"])]),
        .systemLibrary(name: "CSQLite", path: "Shared/CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CCrypto", path: "Shared/CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // libcurl's multi interface with nghttp2: notification-service's HTTP/2 client for APNs (issue 27).
        .systemLibrary(name: "CCurl", path: "Shared/CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .target(name: "ZeroMQ", dependencies: ["CZeroMQ"], path: "Shared/ZeroMQ"),
        .target(name: "SQLite", dependencies: ["CSQLite"], path: "Shared/SQLite"),
        .target(name: "Messages", path: "Shared/Messages", exclude: ["PROTOCOL.md"]),
        // Who may do what: the op table, the bus's publish and subscribe rules, stream owners and
        // Core Location's authorization policy. Built on Messages; Messages never needs it.
        .target(name: "Policy", dependencies: ["Messages"], path: "Shared/Policy"),
        .target(name: "Campus", dependencies: ["Messages"], path: "Shared/Campus"),
        .target(name: "ServiceRuntime", dependencies: ["ZeroMQ", "SQLite", "Messages", "Policy", "Campus", "Metrics"], path: "Shared/ServiceRuntime"),
        .target(name: "Metrics", path: "Shared/Metrics"),
        // Who an HTTP client is: OpenID Connect ID tokens checked against each issuer's JWKS, ES256
        // signing (APNs provider tokens) and bearer sessions stored hashed (issues 26, 27).
        .target(name: "Identity", dependencies: ["CCrypto", "Messages", "SQLite"], path: "Shared/Identity", exclude: ["README.md"]),
    ]
    + [
        // The bus's pure rules (its subscription ledger) apart from the proxy, so tests reach them.
        .target(name: "BusCore", dependencies: ["Messages"], path: "Services/Bus/Core"),
        .executableTarget(name: "bus", dependencies: ["BusCore", "ServiceRuntime", "ZeroMQ", "Messages", "Policy"], path: "Services/Bus", exclude: ["Core"]),
    ]
    + service("BeaconIngest", executable: "beacon-ingest", prefix: "BeaconIngest")
    + service("RegionMonitor", executable: "region-monitor", prefix: "RegionMonitor")
    + service("OrderService", executable: "order-service", prefix: "Order")
    + service("KitchenDisplay", executable: "kitchen-display", prefix: "Kitchen")
    + service("NotificationService", executable: "notification-service", prefix: "Notify", serverDependencies: ["Identity", "CCurl", "CCrypto"])
    + [
        // The HTTP edge's pure core: the tnetstring codec, zmq-http packets, the /v1 route table and
        // its OpenAPI document, problems. No sockets, no SQL; the edge server builds on it.
        .target(name: "EdgeCore", dependencies: ["Messages", "Policy"], path: "Services/Edge/Core"),
        // The edge's server (sockets to Pushpin and the services, sessions, limits, and in Streams/
        // live order status over SSE held by Pushpin) and its executable.
        .target(name: "EdgeServer", dependencies: ["EdgeCore", "EdgeWeb", "Identity", "ServiceRuntime", "Messages", "Policy", "ZeroMQ", "SQLite", "Campus", "Metrics"],
                path: "Services/Edge/Server"),
        // The screens' pages (kitchen display, pickup board, status), plain HTML, CSS and JavaScript
        // compiled into the edge's binary: nothing to install beside it, nothing from the internet.
        .target(name: "EdgeWeb", path: "Services/Edge/Web", exclude: ["README.md"],
                resources: ["index.html", "kitchen.html", "board.html", "status.html", "screens.css", "live.js", "kitchen.js", "board.js", "status.js"]
                    .map { .embedInCode($0) }),
        .executableTarget(name: "edge", dependencies: ["EdgeServer", "ServiceRuntime"], path: "Services/Edge/Main"),
    ]
    + [
        .executableTarget(name: "cafectl", dependencies: ["ServiceRuntime", "ZeroMQ", "Messages", "Policy", "Campus"], path: "Services/Cafectl", exclude: ["README.md"]),
        // load-test's drivers, reports and commands, a library its tests import; the executable only dispatches.
        .target(name: "LoadTestKit", dependencies: ["ServiceRuntime", "ZeroMQ", "CZeroMQ", "Messages", "Policy", "Campus", "Metrics", "BeaconIngestCore", "RegionMonitorCore", "RegionMonitorServer", "SQLite"],
                path: "Services/LoadTest/Kit"),
        .executableTarget(name: "load-test", dependencies: ["LoadTestKit", "ServiceRuntime"], path: "Services/LoadTest/Main"),
        // Test helpers every test target shares (a clock in the test's hand, refusal codes); never shipped.
        .target(name: "TestSupport", dependencies: ["Messages", "Policy", "ZeroMQ"], path: "Tests/Support"),
        // Fuzz targets, one per decoder that takes input from the network or a user; the tests run a short
        // deterministic pass of each, cafe-fuzz a longer one, deploy/fuzz.sh each under libFuzzer. Never shipped.
        .target(name: "FuzzTargets", dependencies: ["Messages", "Campus", "ServiceRuntime", "RegionMonitorCore", "BeaconIngestServer",
                                                    "RegionMonitorServer", "OrderServer", "KitchenServer", "NotifyServer", "NotifyCore", "Identity", "EdgeCore", "EdgeServer", "SQLite", "Policy", "Metrics"],
                path: "Tests/Fuzz/Targets"),
        .executableTarget(name: "cafe-fuzz", dependencies: ["FuzzTargets"], path: "Tests/Fuzz/Main"),
        .testTarget(name: "SharedTests", dependencies: ["TestSupport", "ZeroMQ", "SQLite", "Messages", "Policy", "Campus", "ServiceRuntime", "Metrics"], path: "Tests/SharedTests", resources: [.copy("Fixtures")]),
        .testTarget(name: "CoreTests", dependencies: ["TestSupport", "BusCore", "BeaconIngestCore", "RegionMonitorCore", "OrderCore", "KitchenCore", "NotifyCore", "Messages", "Policy", "Campus"], path: "Tests/CoreTests"),
        .testTarget(name: "OrderServerTests", dependencies: ["TestSupport", "OrderServer", "OrderCore", "ServiceRuntime", "Messages", "Policy", "Campus", "SQLite", "ZeroMQ"], path: "Tests/OrderServerTests"),
        .testTarget(name: "RegionServerTests", dependencies: ["TestSupport", "RegionMonitorServer", "RegionMonitorCore", "ServiceRuntime", "Messages", "Policy", "Campus", "SQLite", "ZeroMQ"],
                    path: "Tests/RegionServerTests"),
        .testTarget(name: "NotifyServerTests", dependencies: ["TestSupport", "NotifyServer", "NotifyCore", "ServiceRuntime", "Messages", "Policy", "Campus", "SQLite", "Identity"], path: "Tests/NotifyServerTests"),
        .testTarget(name: "IngestServerTests", dependencies: ["TestSupport", "BeaconIngestServer", "BeaconIngestCore", "ServiceRuntime", "Messages", "Policy", "SQLite", "ZeroMQ"],
                    path: "Tests/IngestServerTests"),
        .testTarget(name: "KitchenServerTests", dependencies: ["TestSupport", "KitchenServer", "KitchenCore", "ServiceRuntime", "Messages", "Policy", "SQLite"],
                    path: "Tests/KitchenServerTests"),
        .testTarget(name: "IdentityTests", dependencies: ["TestSupport", "Identity", "Messages", "SQLite"], path: "Tests/IdentityTests"),
        .testTarget(name: "EdgeServerTests", dependencies: ["TestSupport", "EdgeServer", "EdgeCore", "EdgeWeb", "Identity", "ServiceRuntime", "Messages", "Policy", "SQLite", "ZeroMQ", "Metrics"],
                    path: "Tests/EdgeServerTests"),
        .testTarget(name: "EdgeCoreTests", dependencies: ["EdgeCore", "Messages", "Policy"], path: "Tests/EdgeCoreTests", exclude: ["Fixtures"]),
        .testTarget(name: "FuzzTests", dependencies: ["FuzzTargets", "Messages", "Campus"], path: "Tests/FuzzTests"),
        .testTarget(name: "LoadTestKitTests", dependencies: ["LoadTestKit", "ServiceRuntime", "Campus"], path: "Tests/LoadTestKitTests"),
        .testTarget(name: "IntegrationTests", dependencies: ["TestSupport", "ZeroMQ", "SQLite", "Messages", "Policy", "ServiceRuntime", "Campus", "LoadTestKit", "Metrics"], path: "Tests/IntegrationTests"),
    ],
    swiftLanguageModes: [.v6]
)

// Release builds leave out the run-time exclusivity checks (each `swift_beginAccess` on a class's
// stored property: a thread-local access set kept per access). Callgrind of a region-monitor
// first-seen device (`load-test bench --only e`): 10,500 of 120,800 instructions were those checks.
// Debug builds, which the tests run, keep them, so an overlapping access is still caught there; the
// compiler's static checks apply in both.
for target in package.targets where target.type != .test && target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]
}
