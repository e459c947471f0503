package jsrt

// ArgCheck checks a host tool's argument, the JSON form of what the code
// passed, against the tool's input schema: "" when it meets it, otherwise
// what is wrong, for the code's TypeError.
type ArgCheck func(args []byte) string

// SchemaCompiler compiles a host tool's input schema into its [ArgCheck].
// [NewToolbox] is given one rather than this package linking a JSON Schema
// validator, so that a worker process, which never checks arguments (its
// calls are checked in the parent), starts without one.
type SchemaCompiler func(schema []byte) (ArgCheck, error)
