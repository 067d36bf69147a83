import Messages

/// Monitors by name: opened and closed by one owner at a time, limited in number, each listing
/// its conditions (`ConditionTable` entries) in the order they were added. A built-in monitor
/// (the campus monitor) belongs to the service and is changed only through the catalog.
final class MonitorTable {
    private struct Monitor {
        var owner: String?
        var builtIn: Bool
        /// Its conditions' entries, in the order they were added.
        var entries: [Int] = []
    }

    private var monitors: [String: Monitor] = [:]
    private let conditionLimit: Int
    private let monitorLimit: Int

    /// No monitors yet; the limits are `RegionSettings`'.
    init(conditionLimit: Int, monitorLimit: Int) {
        self.conditionLimit = conditionLimit
        self.monitorLimit = monitorLimit
    }

    /// Every monitor's name, sorted.
    var names: [String] { monitors.keys.sorted() }

    /// Declares a monitor the service builds itself: nobody may open it or change its conditions.
    func declareBuiltIn(_ name: String) {
        monitors[name, default: Monitor(owner: nil, builtIn: true)].builtIn = true
    }

    /// Takes a monitor by name, creating it when new. One owner at a time; opening again as the
    /// same owner is harmless.
    func open(_ name: String, owner: String) throws(ServiceError) -> MonitorInfo {
        try ConditionRules.validateMonitorName(name)
        try ConditionRules.validateOwner(owner)
        if let monitor = monitors[name] {
            if monitor.builtIn { throw ServiceError(.monitorOwned, "monitor \(name) is built from the campus catalog and cannot be opened") }
            if let current = monitor.owner, current != owner { throw ServiceError(.monitorOwned, "monitor \(name) is held by \"\(current)\"") }
        } else {
            guard monitors.values.filter({ !$0.builtIn }).count < monitorLimit else {
                throw ServiceError(.monitorLimitExceeded, "there are already \(monitorLimit) monitors, the limit")
            }
            monitors[name] = Monitor(owner: nil, builtIn: false)
        }
        monitors[name]?.owner = owner
        return info(name)!
    }

    /// Releases a monitor; its conditions stay.
    func close(_ name: String, owner: String) throws(ServiceError) -> MonitorInfo {
        guard let monitor = monitors[name] else { throw Self.unknownMonitor(name) }
        if monitor.builtIn { throw ServiceError(.monitorOwned, "monitor \(name) is built from the campus catalog and cannot be closed") }
        guard monitor.owner == owner else {
            throw ServiceError(.notMonitorOwner, monitor.owner.map { "monitor \(name) is held by \"\($0)\", not \"\(owner)\"" } ?? "monitor \(name) is not open")
        }
        monitors[name]?.owner = nil
        return info(name)!
    }

    /// Restores a monitor from storage (one already declared stays as it is).
    func restore(_ name: String, owner: String?) {
        if monitors[name] == nil { monitors[name] = Monitor(owner: owner, builtIn: false) }
    }

    /// A monitor's owner, conditions and limit; nil for an unknown monitor.
    func info(_ name: String) -> MonitorInfo? {
        monitors[name].map {
            MonitorInfo(monitor: name, owner: $0.owner, conditions: $0.entries.count, conditionLimit: $0.builtIn ? $0.entries.count : conditionLimit,
                        builtIn: $0.builtIn)
        }
    }

    /// A monitor's conditions' entries, in the order added; nil for an unknown monitor.
    func entries(of name: String) -> [Int]? { monitors[name]?.entries }

    /// Throws unless the monitor exists and, for `owner` other than nil (nil is the service
    /// itself), the owner may change its conditions; the built-in monitor refuses everyone.
    func checkOwner(_ owner: String?, of name: String) throws(ServiceError) {
        guard let monitor = monitors[name] else { throw Self.unknownMonitor(name) }
        guard let owner else { return }
        if monitor.builtIn {
            throw ServiceError(.monitorOwned, "monitor \(name) is built from the campus catalog; change the catalog instead")
        }
        guard monitor.owner == owner else {
            throw ServiceError(.notMonitorOwner, monitor.owner.map { "monitor \(name) is held by \"\($0)\", not \"\(owner)\"" }
                ?? "open monitor \(name) as \"\(owner)\" before changing it")
        }
    }

    /// Throws when a client's monitor already holds its limit of conditions.
    func checkRoom(in name: String) throws(ServiceError) {
        let count = monitors[name]?.entries.count ?? 0
        if count >= conditionLimit {
            throw ServiceError(.conditionLimitExceeded, "monitor \(name) already holds \(count) conditions, the limit")
        }
    }

    /// Files a condition's entry under its monitor, last.
    func append(_ entry: Int, to name: String) { monitors[name]?.entries.append(entry) }

    /// Takes a removed condition's entry off its monitor.
    func remove(_ entry: Int, from name: String) { monitors[name]?.entries.removeAll { $0 == entry } }

    /// The refusal for a monitor that does not exist.
    static func unknownMonitor(_ name: String) -> ServiceError {
        ServiceError(.unknownMonitor, "no monitor named \"\(name.prefix(64))\"")
    }

    /// The refusal the request socket's queries give: it points the caller at `monitor.list`.
    static func unknownMonitorListed(_ name: String) -> ServiceError {
        ServiceError(.unknownMonitor, "no monitor named \"\(name.prefix(64))\"; monitor.list shows them")
    }

    /// The refusal for an identifier a monitor does not hold.
    static func unknownCondition(_ monitor: String, _ identifier: String) -> ServiceError {
        ServiceError(.unknownCondition, "monitor \(monitor) has no condition \"\(identifier.prefix(64))\"")
    }
}
