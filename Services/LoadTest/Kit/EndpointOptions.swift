import ServiceRuntime

/// The platform endpoints `load-test run` and `load-test scenario` both reach, declared once.
enum EndpointOptions {
    static let orders = Option<String>("orders", .endpoint, default: "tcp://127.0.0.1:7430", help: "order-service request endpoint")
    static let kitchen = Option<String>("kitchen", .endpoint, default: "tcp://127.0.0.1:7440", help: "kitchen-display request endpoint")
    static let notify = Option<String>("notify", .endpoint, default: "tcp://127.0.0.1:7450", help: "notification-service request endpoint")
    static let busSub = Option<String>("bus-sub", .endpoint, default: "tcp://127.0.0.1:7402", help: "the bus endpoint subscribers connect to")
}
