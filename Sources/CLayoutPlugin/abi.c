/* The plugin ABI is a header only; SwiftPM needs one source file per C target. */
