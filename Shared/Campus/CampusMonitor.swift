extension CampusCatalog {
    /// The built-in monitor region-monitor fills from the catalog (a beacon condition and an area
    /// condition per café). order-service and notification-service read its events by this name,
    /// so it is one constant, not an option any one of them could change alone.
    public static let monitorName = "campus"
}
