package script

import (
	"strings"
)

// word is a blank-separated word of a meta-command with its file offset.
type word struct {
	text string
	off  int
	end  int
}

// metaWords splits a meta-command (from just after the backslash to the end
// of its line) into words the way pgbench does: words are runs of non-blank
// characters, and a backslash-newline is a continuation.
func metaWords(text string, base int) []word {
	var ws []word
	i := 0
	for i < len(text) {
		if isMetaBlank(text[i]) {
			i++
			continue
		}
		if n := continuationLen(text[i:]); n > 0 {
			i += n
			continue
		}
		start := i
		var b strings.Builder
		for i < len(text) && !isMetaBlank(text[i]) && text[i] != '\n' {
			if continuationLen(text[i:]) > 0 {
				break
			}
			b.WriteByte(text[i])
			i++
		}
		ws = append(ws, word{text: b.String(), off: base + start, end: base + i})
	}
	return ws
}

func isMetaBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' }

// continuationLen returns 2 or 3 for a backslash-newline at the start of s.
func continuationLen(s string) int {
	switch {
	case strings.HasPrefix(s, "\\\n"):
		return 2
	case strings.HasPrefix(s, "\\\r\n"):
		return 3
	}
	return 0
}

// maxMetaArgs is pgbench's MAX_ARGS: the most words a meta-command other
// than \set, \if and \elif may have, its name included. pgbench rejects
// more while parsing; \resp, gbench's own, has no such limit.
const maxMetaArgs = 256

// metaKinds maps meta-command names (matched ignoring case) to kinds.
var metaKinds = map[string]CmdKind{
	"set": CmdSet, "setshell": CmdSetShell, "shell": CmdShell, "sleep": CmdSleep,
	"if": CmdIf, "elif": CmdElif, "else": CmdElse, "endif": CmdEndif,
	"startpipeline": CmdStartPipeline, "syncpipeline": CmdSyncPipeline,
	"endpipeline": CmdEndPipeline, "resp": CmdRESP,
}

// parseMeta parses one meta-command. It returns nil, nil for a backslash
// with nothing after it, which pgbench ignores.
func (p *parser) parseMeta(raw rawCommand) (*Command, error) {
	text := p.src.text[raw.off+1 : raw.end]
	ws := metaWords(text, raw.off+1)
	if len(ws) == 0 {
		return nil, nil
	}
	name := strings.ToLower(ws[0].text)
	cmd := p.newCommand(raw.off, name)
	cmd.FirstLine = strings.TrimRight(p.src.text[raw.off:raw.end], "\r\n")
	if len(ws) > maxMetaArgs && name != "set" && name != "if" && name != "elif" && name != "resp" {
		return nil, p.src.errorAt(ws[maxMetaArgs].off, "too many arguments").in(name).
			because("a meta-command takes at most %d words, its name included", maxMetaArgs)
	}
	if name == "gset" || name == "aset" {
		return p.parseGSet(raw, ws)
	}
	kind, ok := metaKinds[name]
	if !ok {
		return nil, p.src.errorAt(ws[0].off, "invalid command").in(ws[0].text)
	}
	cmd.Kind = kind
	switch kind {
	case CmdSet:
		return cmd, p.parseSet(cmd, raw, ws)
	case CmdIf, CmdElif:
		return cmd, p.parseCond(cmd, raw, ws)
	case CmdSleep:
		return cmd, p.parseSleep(cmd, ws)
	case CmdSetShell, CmdShell:
		return cmd, p.parseShell(cmd, ws)
	case CmdRESP:
		return cmd, p.parseRESP(cmd, raw, ws)
	}
	if len(ws) != 1 {
		return nil, p.src.errorAt(ws[1].off, "unexpected argument").in(name)
	}
	return cmd, nil
}

func (p *parser) parseSet(cmd *Command, raw rawCommand, ws []word) error {
	if len(ws) < 2 {
		return p.src.errorAt(ws[0].off, "missing argument").in("set").because("expected a variable name and an expression")
	}
	n, err := p.parseExpr(ws[1].end, raw.end, "set")
	if err != nil {
		return err
	}
	cmd.Set = &SetCommand{Var: ws[1].text, Expr: n}
	if c, ok := n.(*CallNode); ok && funcInfos[c.Fn].list {
		cmd.Set.List = c
		n = &CallNode{Args: c.Args} // its arguments must be numbers
	}
	return p.checkLists(n, "set")
}

// checkLists rejects list functions anywhere a number is required.
func (p *parser) checkLists(n Node, cmdName string) error {
	c, ok := n.(*CallNode)
	if !ok {
		return nil
	}
	if funcInfos[c.Fn].list {
		return p.src.errorAt(p.exprBase+c.P.Offset, "%s() returns a list, which can only be the whole expression of \\set, not part of a computation", funcInfos[c.Fn].name).in(cmdName)
	}
	for _, a := range c.Args {
		if err := p.checkLists(a, cmdName); err != nil {
			return err
		}
	}
	return nil
}

func (p *parser) parseCond(cmd *Command, raw rawCommand, ws []word) error {
	n, err := p.parseExpr(ws[0].end, raw.end, cmd.Name)
	if err != nil {
		return err
	}
	cmd.Cond = n
	return p.checkLists(n, cmd.Name)
}

// parseSleep follows pgbench: "\sleep 10", "\sleep 10 ms", "\sleep 10ms",
// "\sleep :var [unit]"; a literal must be an integer.
func (p *parser) parseSleep(cmd *Command, ws []word) error {
	switch {
	case len(ws) < 2:
		return p.src.errorAt(ws[0].off, "missing argument").in("sleep").because("expected a duration")
	case len(ws) > 3:
		return p.src.errorAt(ws[3].off, "too many arguments").in("sleep")
	}
	arg, unit, unitOff := ws[1].text, "", -1
	if len(ws) == 3 {
		unit, unitOff = ws[2].text, ws[2].off
	}
	if !strings.HasPrefix(arg, ":") {
		digits := signedDigitsLen(arg)
		if digits < len(arg) {
			hasDigit := digits > 0 && isDigit(arg[digits-1])
			if len(ws) != 2 || !hasDigit {
				return p.src.errorAt(ws[1].off, "invalid sleep time, must be an integer (%s)", arg).in("sleep")
			}
			unit, unitOff = arg[digits:], ws[1].off+digits
		}
	}
	mult := int64(1000000)
	if unitOff >= 0 {
		switch strings.ToLower(unit) {
		case "us":
			mult = 1
		case "ms":
			mult = 1000
		case "s":
		default:
			return p.src.errorAt(unitOff, "unrecognized time unit, must be us, ms or s (%s)", unit).in("sleep")
		}
	}
	s := &Sleep{Slot: -1, Unit: SleepUnit(mult)}
	if strings.HasPrefix(arg, ":") {
		s.Var, s.Slot = arg[1:], 0 // resolved by Compile
	} else {
		s.Usec = int64(int32(atoi(arg)) * int32(mult))
	}
	cmd.Sleep = s
	return nil
}

// signedDigitsLen returns the length of an optional sign and digits.
func signedDigitsLen(s string) int {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

// atoi is C's atoi for an int: leading blanks, a sign, digits, then
// anything; the result wraps like a 32-bit int.
func atoi(s string) int32 {
	i := 0
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	var n int64
	for ; i < len(s) && isDigit(s[i]); i++ {
		n = n*10 + int64(s[i]-'0')
		if n > 1<<40 {
			n = 1 << 40 // strtol saturates; the int conversion then wraps
		}
	}
	if neg {
		n = -n
	}
	return int32(n)
}

func (p *parser) parseShell(cmd *Command, ws []word) error {
	args := ws[1:]
	sh := &Shell{Slot: -1}
	if cmd.Kind == CmdSetShell {
		if len(ws) < 3 {
			return p.src.errorAt(ws[0].off, "missing argument").in("setshell").because("expected a variable name and a command")
		}
		sh.Var, args = ws[1].text, ws[2:]
	} else if len(ws) < 2 {
		return p.src.errorAt(ws[0].off, "missing command").in("shell")
	}
	for _, w := range args {
		sw := ShellWord{Text: w.text, Slot: -1}
		switch {
		case strings.HasPrefix(w.text, "::"):
			sw.Text = w.text[1:]
		case strings.HasPrefix(w.text, ":"):
			sw.Slot = 0 // resolved by Compile
		}
		sh.Words = append(sh.Words, sw)
	}
	cmd.Shell = sh
	return nil
}

// parseGSet merges \gset or \aset into the preceding SQL or \resp command.
func (p *parser) parseGSet(raw rawCommand, ws []word) (*Command, error) {
	name := strings.ToLower(ws[0].text)
	if len(ws) > 2 {
		return nil, p.src.errorAt(ws[2].off, "too many arguments").in(name)
	}
	n := len(p.script.Commands)
	if n == 0 || p.script.Commands[n-1].GSet != NoGSet ||
		(p.script.Commands[n-1].Kind != CmdSQL && p.script.Commands[n-1].Kind != CmdRESP) {
		e := p.src.errorAt(ws[0].off, "\\%s must follow an SQL command", name)
		if n > 0 && p.script.Commands[n-1].Kind != CmdSQL {
			// pgbench names the meta-command in the way.
			e.Msg += " (" + p.script.Commands[n-1].FirstLine + ")"
		}
		return nil, e.because("it stores the result of the SQL or \\resp command just before it")
	}
	prev := p.script.Commands[n-1]
	prev.GSet = GSet
	if name == "aset" {
		prev.GSet = ASet
	}
	if len(ws) == 2 {
		prev.Prefix = ws[1].text
	}
	return nil, nil
}
