import StratusKitTesting

/// The tests' seeded random numbers: the client package's generator, which apps' tests use too.
public typealias SeededGenerator = StratusKitTesting.SeededGenerator
