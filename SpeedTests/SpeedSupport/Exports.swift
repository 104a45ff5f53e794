// Exports: what every speed-test executable gets with `import SpeedSupport` besides this
// module: the seeded generator (SplitMix) shared with Larder's own tests.

@_exported import LarderTestSupport
