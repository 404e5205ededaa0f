package script

// CmdKind is the kind of a script command.
type CmdKind uint8

// Command kinds: SQL, pgbench's meta-commands, and gbench's \resp.
const (
	CmdSQL CmdKind = iota
	CmdSet
	CmdSetShell
	CmdShell
	CmdSleep
	CmdIf
	CmdElif
	CmdElse
	CmdEndif
	CmdStartPipeline
	CmdSyncPipeline
	CmdEndPipeline
	CmdRESP
)

// GSetKind says whether a command's results are stored into variables.
type GSetKind uint8

// \gset stores the last result's single row; \aset stores every result's
// last row.
const (
	NoGSet GSetKind = iota
	GSet
	ASet
)

// Command is one compiled command of a script. Commands are immutable once
// compiled and shared by all clients.
type Command struct {
	Kind CmdKind
	// Name is the meta-command name as pgbench reports it ("set", "sleep"),
	// or "SQL".
	Name string
	// Line is the 1-based line where the command starts; Col its column.
	Line, Col int
	// FirstLine is the command's first line (at most 127 bytes), as shown by
	// the per-command report (-r).
	FirstLine string

	// GSet and Prefix: results of an SQL or \resp command go into variables.
	GSet   GSetKind
	Prefix string

	SQL   *SQL         // CmdSQL
	RESP  *RESPCommand // CmdRESP
	Set   *SetCommand  // CmdSet
	Sleep *Sleep       // CmdSleep
	Shell *Shell       // CmdShell, CmdSetShell
	Cond  Node         // CmdIf, CmdElif

	// For CmdIf, CmdElif and CmdElse: Next is the index of the following
	// \elif, \else or \endif of the same \if, and EndIf the index of its
	// \endif. Jumping there is what pgbench's conditional stack amounts to.
	Next, EndIf int
}

// SetCommand is \set name expression.
type SetCommand struct {
	Var  string
	Slot int
	Expr Node
	// List is set when the expression is a list function (range or
	// random_keys), which may only be the whole expression.
	List *CallNode
}

// SleepUnit multiplies a \sleep argument into microseconds.
type SleepUnit int64

// Sleep is \sleep n [us|ms|s] or \sleep :var [unit].
type Sleep struct {
	Usec int64 // literal argument, already in microseconds (when Slot < 0)
	Var  string
	Slot int       // variable argument, or -1
	Unit SleepUnit // multiplier for a variable argument
}

// Shell is \shell or \setshell: words joined by blanks, with :var words
// replaced by the variable's value.
type Shell struct {
	Var   string // \setshell's target variable
	Slot  int
	Words []ShellWord
}

// ShellWord is a literal word, or a variable reference when Slot >= 0.
type ShellWord struct {
	Text string // literal text, or ":name" for messages
	Slot int
}

// Program is the command's first word as written, which pgbench's
// messages about the command start with ("false: could not launch shell
// command").
func (sh *Shell) Program() string {
	if len(sh.Words) == 0 {
		return ""
	}
	return sh.Words[0].Text
}

// Script is one parsed script (a file or a builtin) with its weight.
type Script struct {
	Name     string // pgbench's description: the file name or "<builtin: ...>"
	Weight   int
	Commands []*Command
}

// GSetName returns "gset" or "aset", for messages.
func (c *Command) GSetName() string {
	if c.GSet == ASet {
		return "aset"
	}
	return "gset"
}
