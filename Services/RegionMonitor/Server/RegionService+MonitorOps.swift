import Messages
import RegionMonitorCore
import ServiceRuntime

/// The monitor requests (CLMonitor's API over the request socket): list, open, close, add and
/// remove conditions, identifiers, records. The engine decides and refuses; what changed is
/// stored in the same transaction.
extension RegionService {
    func routeMonitorOps() {
        router.on(Op.monitorList, Empty.self) { [unowned self] _ in
            MonitorList(monitors: engine.monitorInfos)
        }
        router.on(Op.monitorOpen, MonitorOwnership.self) { [unowned self] request in
            try events.write {
                let info = try engine.open(monitor: request.monitor, owner: request.owner)
                try store.saveMonitor(info)
                return info
            }
        }
        router.on(Op.monitorClose, MonitorOwnership.self) { [unowned self] request in
            try events.write {
                let info = try engine.close(monitor: request.monitor, owner: request.owner)
                try store.saveMonitor(info)
                return info
            }
        }
        router.on(Op.monitorAdd, AddCondition.self) { [unowned self] request in
            try events.write { try add(request) }
        }
        router.on(Op.monitorRemove, RemoveCondition.self) { [unowned self] request in
            try events.write {
                let removed = try engine.remove(monitor: request.monitor, identifier: request.identifier, owner: request.owner)
                try store.deleteCondition(monitor: request.monitor, identifier: request.identifier)
                return RemovedCondition(monitor: request.monitor, identifier: request.identifier, recordsRemoved: removed)
            }
        }
        router.on(Op.monitorIdentifiers, MonitorQuery.self) { [unowned self] query in
            try engine.monitorIdentifiers(monitor: query.monitor)
        }
        router.on(Op.monitorRecord, RecordQuery.self) { [unowned self] query in
            try engine.monitorRecord(monitor: query.monitor, identifier: query.identifier, deviceId: query.deviceId)
        }
    }

    /// `monitor.add`: the condition as the engine made it canonical is stored (replacing one
    /// under its identifier, records included), with the events of devices it already affects.
    private func add(_ request: AddCondition) throws -> MonitorRecord {
        let spec = ConditionSpec(monitor: request.monitor, identifier: request.identifier, condition: request.condition,
                                 deviceId: request.deviceId, assuming: request.assuming)
        let (replaced, effects) = try engine.add(spec, owner: request.owner, now: clock.now())
        guard let added = engine.spec(monitor: request.monitor, identifier: request.identifier) else {
            throw ServiceError(.internalError, "the condition vanished while being added")
        }
        try store.saveCondition(added)
        try apply(effects)
        logger.info("condition added", ["monitor": request.monitor, "identifier": request.identifier, "records.replaced": "\(replaced)"])
        return try engine.monitorRecord(monitor: request.monitor, identifier: request.identifier, deviceId: request.deviceId)
    }
}
