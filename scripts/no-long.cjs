// Stands in for the `long` package in the bundle: protobufjs then reads int64 fields as numbers (what berth's decoder wants) instead of loading long.js, which compiles a WebAssembly module at start-up.
module.exports = {};
