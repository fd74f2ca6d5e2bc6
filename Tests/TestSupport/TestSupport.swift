// Helpers shared by the test targets. The seeded generator lives with the fuzz targets, which
// use it too.
@_exported import struct LayoutFuzzing.SeededGenerator
