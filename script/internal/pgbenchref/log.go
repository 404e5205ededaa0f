package pgbenchref

import (
	"strconv"
	"strings"
)

// The --debug log is line oriented: lines of pgbench's own start with
// "pgbench: ", debug() writes "debug(...)" lines, and anything else
// continues the previous entry (a multi-line SQL text, or an error's
// context such as the echoed command and its caret line).
const (
	logPrefix   = "pgbench: "
	errorPrefix = "pgbench: error: "
	debugPrefix = "debug("
)

type logState int

const (
	inNothing logState = iota
	inSQL
	inError
)

// parseLog fills an Outcome's Sent, Debug and Errors from pgbench's stderr.
func parseLog(stderr string) Outcome {
	var out Outcome
	txn := map[int]int{}
	state := inNothing
	for _, line := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
		switch {
		case strings.HasPrefix(line, errorPrefix):
			out.Errors = append(out.Errors, strings.TrimPrefix(line, errorPrefix))
			state = inError
		case strings.HasPrefix(line, debugPrefix):
			out.Debug = append(out.Debug, line)
			state = inNothing
		case strings.HasPrefix(line, logPrefix):
			state = out.logLine(strings.TrimPrefix(line, logPrefix), state, txn)
		case state == inSQL:
			out.Sent[len(out.Sent)-1].SQL += "\n" + line
		case state == inError:
			out.Errors[len(out.Errors)-1] += "\n" + line
		}
	}
	return out
}

// logLine handles one "pgbench: " line (prefix removed) and returns the
// state for the lines that follow it.
func (o *Outcome) logLine(msg string, state logState, txn map[int]int) logState {
	if kind, _, ok := strings.Cut(msg, ": "); ok && (kind == "detail" || kind == "hint") {
		if state == inError {
			o.Errors[len(o.Errors)-1] += "\n" + msg
			return inError
		}
		return inNothing
	}
	client, rest, ok := clientLine(msg)
	switch {
	case !ok:
	case strings.HasPrefix(rest, "executing script "):
		txn[client]++
	case strings.HasPrefix(rest, "sending "):
		sql := strings.TrimPrefix(rest, "sending ")
		o.Sent = append(o.Sent, Sent{Client: client, Txn: txn[client] - 1, SQL: sql})
		return inSQL
	}
	return inNothing
}

// clientLine splits "client N rest" into N and rest.
func clientLine(msg string) (int, string, bool) {
	rest, ok := strings.CutPrefix(msg, "client ")
	if !ok {
		return 0, "", false
	}
	num, rest, ok := strings.Cut(rest, " ")
	n, err := strconv.Atoi(num)
	return n, rest, ok && err == nil
}
