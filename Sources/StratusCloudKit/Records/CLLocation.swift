import Foundation

#if canImport(CoreLocation)
@_exported import CoreLocation

extension CLLocation: CKRecordValueProtocol {}
#else
public typealias CLLocationDegrees = Double
public typealias CLLocationDistance = Double
public typealias CLLocationAccuracy = Double
public typealias CLLocationSpeed = Double
public typealias CLLocationDirection = Double

/// A latitude and a longitude, as CoreLocation's (which this platform lacks).
public struct CLLocationCoordinate2D: Sendable, Hashable {
    public var latitude: CLLocationDegrees
    public var longitude: CLLocationDegrees

    public init() {
        self.init(latitude: 0, longitude: 0)
    }

    public init(latitude: CLLocationDegrees, longitude: CLLocationDegrees) {
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// A place on Earth, as CoreLocation's `CLLocation` (which this platform lacks): a record field's location value.
open class CLLocation: NSObject, NSSecureCoding, NSCopying, CKRecordValueProtocol, @unchecked Sendable {
    public let coordinate: CLLocationCoordinate2D
    public let altitude: CLLocationDistance
    public let horizontalAccuracy: CLLocationAccuracy
    public let verticalAccuracy: CLLocationAccuracy
    public let course: CLLocationDirection
    public let speed: CLLocationSpeed
    public let timestamp: Date

    public convenience init(latitude: CLLocationDegrees, longitude: CLLocationDegrees) {
        self.init(
            coordinate: CLLocationCoordinate2D(latitude: latitude, longitude: longitude), altitude: 0,
            horizontalAccuracy: 0, verticalAccuracy: -1, timestamp: Date()
        )
    }

    public convenience init(
        coordinate: CLLocationCoordinate2D, altitude: CLLocationDistance, horizontalAccuracy: CLLocationAccuracy,
        verticalAccuracy: CLLocationAccuracy, timestamp: Date
    ) {
        self.init(
            coordinate: coordinate, altitude: altitude, horizontalAccuracy: horizontalAccuracy,
            verticalAccuracy: verticalAccuracy, course: -1, speed: -1, timestamp: timestamp
        )
    }

    public init(
        coordinate: CLLocationCoordinate2D, altitude: CLLocationDistance, horizontalAccuracy: CLLocationAccuracy,
        verticalAccuracy: CLLocationAccuracy, course: CLLocationDirection, speed: CLLocationSpeed, timestamp: Date
    ) {
        self.coordinate = coordinate
        self.altitude = altitude
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.course = course
        self.speed = speed
        self.timestamp = timestamp
    }

    /// The great-circle distance in meters to another location (haversine, on a sphere of Earth's mean radius).
    public func distance(from location: CLLocation) -> CLLocationDistance {
        let radians = Double.pi / 180
        let dLatitude = (location.coordinate.latitude - coordinate.latitude) * radians
        let dLongitude = (location.coordinate.longitude - coordinate.longitude) * radians
        let a = sin(dLatitude / 2) * sin(dLatitude / 2)
            + cos(coordinate.latitude * radians) * cos(location.coordinate.latitude * radians) * sin(dLongitude / 2) * sin(dLongitude / 2)
        return 6_371_008.8 * 2 * atan2(a.squareRoot(), (1 - a).squareRoot())
    }

    public static var supportsSecureCoding: Bool { true }

    public func encode(with coder: NSCoder) {
        coder.encode(coordinate.latitude, forKey: "latitude")
        coder.encode(coordinate.longitude, forKey: "longitude")
        coder.encode(altitude, forKey: "altitude")
        coder.encode(horizontalAccuracy, forKey: "horizontalAccuracy")
        coder.encode(verticalAccuracy, forKey: "verticalAccuracy")
        coder.encode(course, forKey: "course")
        coder.encode(speed, forKey: "speed")
        coder.encode(timestamp.timeIntervalSinceReferenceDate, forKey: "timestamp")
    }

    public required init?(coder: NSCoder) {
        coordinate = CLLocationCoordinate2D(latitude: coder.decodeDouble(forKey: "latitude"), longitude: coder.decodeDouble(forKey: "longitude"))
        altitude = coder.decodeDouble(forKey: "altitude")
        horizontalAccuracy = coder.decodeDouble(forKey: "horizontalAccuracy")
        verticalAccuracy = coder.decodeDouble(forKey: "verticalAccuracy")
        course = coder.decodeDouble(forKey: "course")
        speed = coder.decodeDouble(forKey: "speed")
        timestamp = Date(timeIntervalSinceReferenceDate: coder.decodeDouble(forKey: "timestamp"))
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? CLLocation else { return false }
        return coordinate == other.coordinate && altitude == other.altitude && horizontalAccuracy == other.horizontalAccuracy
    }

    public override var hash: Int { coordinate.hashValue }
}
#endif
