/// A campus catalog that cannot be used, naming the field: "cafes[2] (parmer-lane-5).confirmationRadius: …".
public struct CatalogError: Error, Sendable, Equatable, CustomStringConvertible {
    public let field: String
    public let problem: String

    public init(field: String, problem: String) {
        self.field = field
        self.problem = problem
    }

    public var description: String { "campus catalog: \(field): \(problem)" }
}
