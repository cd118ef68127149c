package sandbox

// legacyCalls are none on arm64, which has only the *at calls.
var legacyCalls = map[string]uint32{}

// absentCalls are the table's setid-mode calls this ABI lacks.
var absentCalls = []string{"chmod", "creat", "mknod", "open"}
