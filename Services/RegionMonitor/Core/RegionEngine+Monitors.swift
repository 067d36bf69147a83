import Messages

/// Monitors: opened and closed by one owner at a time, limited in number; the built-in campus
/// monitor belongs to the service and is changed only through the catalog.
extension RegionEngine {
    struct Monitor {
        var owner: String?
        var builtIn: Bool
        /// Its conditions' entries, in the order they were added.
        var entries: [Int] = []
    }

    /// Declares a monitor the service builds itself (the campus monitor): nobody may open it or
    /// change its conditions through the socket.
    public func declareBuiltIn(_ name: String) {
        monitors[name, default: Monitor(owner: nil, builtIn: true)].builtIn = true
    }

    /// Takes a monitor by name, creating it when new. One owner at a time; opening again as the
    /// same owner is harmless.
    @discardableResult
    public func open(monitor name: String, owner: String) throws(ServiceError) -> MonitorInfo {
        try ConditionRules.validateMonitorName(name)
        try ConditionRules.validateOwner(owner)
        if let monitor = monitors[name] {
            if monitor.builtIn { throw ServiceError(.monitorOwned, "monitor \(name) is built from the campus catalog and cannot be opened") }
            if let current = monitor.owner, current != owner { throw ServiceError(.monitorOwned, "monitor \(name) is held by \"\(current)\"") }
        } else {
            guard monitors.values.filter({ !$0.builtIn }).count < settings.monitorLimit else {
                throw ServiceError(.monitorLimitExceeded, "there are already \(settings.monitorLimit) monitors, the limit")
            }
            monitors[name] = Monitor(owner: nil, builtIn: false)
        }
        monitors[name]?.owner = owner
        return info(name)!
    }

    /// Releases a monitor; its conditions and records stay and keep being evaluated.
    @discardableResult
    public func close(monitor name: String, owner: String) throws(ServiceError) -> MonitorInfo {
        guard let monitor = monitors[name] else { throw Self.unknownMonitor(name) }
        if monitor.builtIn { throw ServiceError(.monitorOwned, "monitor \(name) is built from the campus catalog and cannot be closed") }
        guard monitor.owner == owner else {
            throw ServiceError(.notMonitorOwner, monitor.owner.map { "monitor \(name) is held by \"\($0)\", not \"\(owner)\"" } ?? "monitor \(name) is not open")
        }
        monitors[name]?.owner = nil
        return info(name)!
    }

    /// Restores a monitor from storage.
    public func restoreMonitor(_ name: String, owner: String?) {
        if monitors[name] == nil { monitors[name] = Monitor(owner: owner, builtIn: false) }
    }

    /// A monitor's owner, conditions and limit; nil for an unknown monitor.
    public func info(_ name: String) -> MonitorInfo? {
        monitors[name].map {
            MonitorInfo(monitor: name, owner: $0.owner, conditions: $0.entries.count, conditionLimit: $0.builtIn ? $0.entries.count : settings.conditionLimit,
                        builtIn: $0.builtIn)
        }
    }

    /// Every monitor, by name (`monitor.list`).
    public var monitorInfos: [MonitorInfo] { monitors.keys.sorted().compactMap(info) }

    /// A monitor's condition identifiers, sorted; nil for an unknown monitor.
    public func identifiers(monitor: String) -> [String]? {
        monitors[monitor].map { $0.entries.compactMap { entries[$0]?.spec.identifier }.sorted() }
    }

    /// `monitor.identifiers`: a monitor's condition identifiers, sorted.
    public func monitorIdentifiers(monitor: String) throws(ServiceError) -> MonitorIdentifiers {
        guard let identifiers = identifiers(monitor: monitor) else { throw Self.unknownMonitorListed(monitor) }
        return MonitorIdentifiers(monitor: monitor, identifiers: identifiers)
    }

    /// Changing a monitor's conditions needs its owner; the built-in monitor refuses everyone.
    func checkOwner(_ owner: String, of name: String, _ monitor: Monitor) throws(ServiceError) {
        if monitor.builtIn {
            throw ServiceError(.monitorOwned, "monitor \(name) is built from the campus catalog; change the catalog instead")
        }
        guard monitor.owner == owner else {
            throw ServiceError(.notMonitorOwner, monitor.owner.map { "monitor \(name) is held by \"\($0)\", not \"\(owner)\"" }
                ?? "open monitor \(name) as \"\(owner)\" before changing it")
        }
    }

    static func unknownMonitor(_ name: String) -> ServiceError {
        ServiceError(.unknownMonitor, "no monitor named \"\(name.prefix(64))\"")
    }

    /// The refusal the request socket's queries give: it points the caller at `monitor.list`.
    static func unknownMonitorListed(_ name: String) -> ServiceError {
        ServiceError(.unknownMonitor, "no monitor named \"\(name.prefix(64))\"; monitor.list shows them")
    }

    static func unknownCondition(_ monitor: String, _ identifier: String) -> ServiceError {
        ServiceError(.unknownCondition, "monitor \(monitor) has no condition \"\(identifier.prefix(64))\"")
    }
}
