import Campus
import Foundation
import Messages
import RegionMonitorCore

/// The campus catalog every service loads at start: a refusal is a `CatalogError` naming the
/// field; a catalog that loads gives region-monitor conditions it accepts.
enum CatalogTarget {
    static func make() -> FuzzTarget {
        FuzzTarget("catalog", "campus catalogs through CampusCatalog.decode and region-monitor's campus conditions",
                   seeds: { Seeds.catalogs() }) { data in
            let catalog: CampusCatalog
            do {
                catalog = try CampusCatalog.decode(data)
            } catch is CatalogError {
                return nil
            } catch {
                return "CampusCatalog.decode threw \(type(of: error)), not a CatalogError: \(error)"
            }
            for spec in ConditionSpec.campus(catalog, monitor: CampusCatalog.monitorName) {
                do {
                    _ = try ConditionRules.validate(spec.condition)
                } catch {
                    return "a catalog that loads gives region-monitor a condition it refuses: \(spec.identifier): \(error)"
                }
            }
            return nil
        }
    }
}
