import Foundation
import StratusKit

/// A type a record field holds, as CloudKit's: strings, numbers, dates, data, references, assets, locations and
/// arrays of them. Numbers come back as `NSNumber`, so `record["count"] as? Int` and `as? Double` both read them.
public protocol CKRecordValueProtocol {}

/// A record field's value (CloudKit's name for what its subscript takes and gives).
public typealias CKRecordValue = CKRecordValueProtocol
/// CloudKit's Objective-C name of ``CKRecordValue``.
public typealias __CKRecordObjCValue = CKRecordValueProtocol

extension String: CKRecordValueProtocol {}
extension NSString: CKRecordValueProtocol {}
extension Int: CKRecordValueProtocol {}
extension Int8: CKRecordValueProtocol {}
extension Int16: CKRecordValueProtocol {}
extension Int32: CKRecordValueProtocol {}
extension Int64: CKRecordValueProtocol {}
extension UInt: CKRecordValueProtocol {}
extension UInt8: CKRecordValueProtocol {}
extension UInt16: CKRecordValueProtocol {}
extension UInt32: CKRecordValueProtocol {}
extension UInt64: CKRecordValueProtocol {}
extension Double: CKRecordValueProtocol {}
extension Float: CKRecordValueProtocol {}
extension Bool: CKRecordValueProtocol {}
extension NSNumber: CKRecordValueProtocol {}
extension Date: CKRecordValueProtocol {}
extension NSDate: CKRecordValueProtocol {}
extension Data: CKRecordValueProtocol {}
extension NSData: CKRecordValueProtocol {}
extension NSArray: CKRecordValueProtocol {}
extension Array: CKRecordValueProtocol where Element: CKRecordValueProtocol {}

/// Between CloudKit's field values and StratusKit's.
enum RecordValues {
    /// A field as CloudKit gives it: strings as `String`, numbers as `NSNumber`, lists as `NSArray`.
    static func object(_ value: FieldValue) -> (any CKRecordValue)? {
        switch value {
        case .string(let text): text
        case .int64(let number): NSNumber(value: number)
        case .double(let number): NSNumber(value: number)
        case .bool(let flag): NSNumber(value: flag ? 1 : 0 as Int64)
        case .date(let date): date
        case .bytes(let data): data
        case .location(let location):
            CLLocation(
                coordinate: CLLocationCoordinate2D(latitude: location.latitude, longitude: location.longitude),
                altitude: location.altitude ?? 0, horizontalAccuracy: location.horizontalAccuracy ?? 0,
                verticalAccuracy: -1, timestamp: Date()
            )
        case .reference(let reference): CKRecord.Reference(reference)
        case .asset(let asset): CKAsset(asset)
        case .localizedString(let text): text.text(for: Locale.preferredLanguages) ?? text.translations.values.sorted().first
        case .list(let elements): NSArray(array: elements.compactMap { object($0) as Any? })
        }
    }

    /// A value an app set, as StratusKit keeps it; `nil` for a type no field holds.
    static func field(_ value: Any) -> FieldValue? {
        switch value {
        case let reference as CKRecord.Reference: return .reference(reference.stratus)
        case let asset as CKAsset: return .asset(asset.stratus)
        case let location as CLLocation:
            return .location(Location(
                latitude: location.coordinate.latitude, longitude: location.coordinate.longitude,
                horizontalAccuracy: location.horizontalAccuracy, altitude: location.altitude
            ))
        case let text as String: return .string(text)
        case let date as Date: return .date(storedPrecision(date))
        case let data as Data: return .bytes(data)
        case let number as NSNumber: return self.number(number)
        case let list as [Any]:
            let elements = list.compactMap(field)
            return elements.count == list.count ? .list(elements) : nil
        default: return nil
        }
    }

    /// A date at the precision the server keeps (milliseconds), so that a record an app keeps after setting a date
    /// compares equal to the same record fetched back.
    static func storedPrecision(_ date: Date) -> Date {
        Date(timeIntervalSince1970: Double(Int64((date.timeIntervalSince1970 * 1000).rounded())) / 1000)
    }

    /// A number as CloudKit keeps it: floating point as a double, anything else (Booleans too) as an integer.
    private static func number(_ number: NSNumber) -> FieldValue {
        switch String(cString: number.objCType) {
        case "d", "f": .double(number.doubleValue)
        default: .int64(number.int64Value)
        }
    }
}
