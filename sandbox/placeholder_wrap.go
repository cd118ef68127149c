package sandbox

// wrapHelperProtect, a word of the Linux wrap helper, carries one protected
// path, its kind's letter first: m missing (a placeholder's), d
// directory, f anything else (placeholder_wrap_linux.go).
const wrapHelperProtect = "protect="

// wrapHelperJournal, a word of the Linux wrap helper, names the caller's
// placeholder journal (placeholders.go), where the helper records the
// placeholders it makes and which the caller's next spawn sweeps.
const wrapHelperJournal = "journal="
