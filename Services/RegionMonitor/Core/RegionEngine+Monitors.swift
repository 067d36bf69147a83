import Messages

/// Monitors (`MonitorTable`): opened and closed by one owner at a time, limited in number; the
/// built-in campus monitor belongs to the service and is changed only through the catalog.
extension RegionEngine {
    /// Declares a monitor the service builds itself (the campus monitor): nobody may open it or
    /// change its conditions through the socket.
    public func declareBuiltIn(_ name: String) {
        monitors.declareBuiltIn(name)
    }

    /// Takes a monitor by name, creating it when new. One owner at a time; opening again as the
    /// same owner is harmless.
    @discardableResult
    public func open(monitor name: String, owner: String) throws(ServiceError) -> MonitorInfo {
        try monitors.open(name, owner: owner)
    }

    /// Releases a monitor; its conditions and records stay and keep being evaluated.
    @discardableResult
    public func close(monitor name: String, owner: String) throws(ServiceError) -> MonitorInfo {
        try monitors.close(name, owner: owner)
    }

    /// Restores a monitor from storage.
    public func restoreMonitor(_ name: String, owner: String?) {
        monitors.restore(name, owner: owner)
    }

    /// A monitor's owner, conditions and limit; nil for an unknown monitor.
    public func info(_ name: String) -> MonitorInfo? {
        monitors.info(name)
    }

    /// Every monitor, by name (`monitor.list`).
    public var monitorInfos: [MonitorInfo] { monitors.names.compactMap(monitors.info) }

    /// A monitor's condition identifiers, sorted; nil for an unknown monitor.
    public func identifiers(monitor: String) -> [String]? {
        monitors.entries(of: monitor).map { $0.compactMap { conditions[$0]?.spec.identifier }.sorted() }
    }

    /// `monitor.identifiers`: a monitor's condition identifiers, sorted.
    public func monitorIdentifiers(monitor: String) throws(ServiceError) -> MonitorIdentifiers {
        guard let identifiers = identifiers(monitor: monitor) else { throw MonitorTable.unknownMonitorListed(monitor) }
        return MonitorIdentifiers(monitor: monitor, identifiers: identifiers)
    }
}
