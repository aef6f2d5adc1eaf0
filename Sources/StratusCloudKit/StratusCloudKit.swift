// CloudKit's Swift API over StratusKit, name for name: an app written against CloudKit changes
// `import CloudKit` to `import StratusCloudKit` and runs against a Stratus server. See docs/cloudkit.md.
@_exported import Foundation
