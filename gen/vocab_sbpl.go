package gen

// sbplOp is one Seatbelt operation the table may name, read by the
// checks, the semantic diff and the posture table. A trailing * is a
// wildcard over the operations that share its prefix.
type sbplOp struct {
	// rows are the posture rows the operation decides.
	rows []string
	// class is the filters the operation evaluates; classNothing means
	// the table uses it without filters only.
	class filterClass
	// writes marks an operation that lets the sandbox write a file; such
	// a grant outside the workspace and temporary directories needs
	// `reviewed`.
	writes bool
	// every marks default, which stands for every operation.
	every bool
}

var (
	rowsRead      = []string{"Read"}
	rowsWrite     = []string{"Write"}
	rowsNetwork   = []string{"Network"}
	rowsProcesses = []string{"Processes"}
	rowsOther     = []string{"Other"}
)

// sbplOps is the SBPL vocabulary: one row per operation.
var sbplOps = map[string]sbplOp{
	"default":              {rows: rowsOther, every: true},
	"process*":             {rows: rowsProcesses},
	"process-exec*":        {rows: rowsProcesses, class: classFile},
	"process-fork":         {rows: rowsProcesses},
	"process-info*":        {rows: rowsProcesses, class: classTarget},
	"signal":               {rows: rowsProcesses, class: classTarget},
	"network*":             {rows: rowsNetwork},
	"network-outbound":     {rows: rowsNetwork, class: classRemote},
	"network-inbound":      {rows: rowsNetwork, class: classLocal},
	"network-bind":         {rows: rowsNetwork, class: classLocal},
	"sysctl*":              {rows: rowsOther},
	"sysctl-read":          {rows: rowsOther, class: classSysctl},
	"sysctl-write":         {rows: rowsOther},
	"ipc*":                 {rows: rowsOther},
	"ipc-posix-shm":        {rows: rowsOther},
	"ipc-posix-sem":        {rows: rowsOther},
	"mach*":                {rows: rowsOther},
	"mach-lookup":          {rows: rowsOther, class: classMach},
	"mach-priv-task-port":  {rows: rowsOther, class: classTarget},
	"file*":                {rows: []string{"Read", "Write"}, class: classFile, writes: true},
	"file-read*":           {rows: rowsRead, class: classFile},
	"file-read-data":       {rows: rowsRead, class: classFile},
	"file-read-metadata":   {rows: rowsRead, class: classFile},
	"file-read-xattr":      {rows: rowsRead, class: classFile},
	"file-write*":          {rows: rowsWrite, class: classFile, writes: true},
	"file-write-data":      {rows: rowsWrite, class: classFile, writes: true},
	"file-write-unlink":    {rows: rowsWrite, class: classFile, writes: true},
	"file-write-create":    {rows: rowsWrite, class: classFile, writes: true},
	"file-ioctl":           {rows: rowsOther, class: classFile},
	"iokit*":               {rows: rowsOther},
	"iokit-open":           {rows: rowsOther},
	"system*":              {rows: rowsOther},
	"system-socket":        {rows: rowsOther, class: classSocket},
	"pseudo-tty":           {rows: []string{"Terminal"}},
	"user-preference-read": {rows: rowsOther, class: classPref},
}
