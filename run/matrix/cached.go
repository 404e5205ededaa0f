package matrix

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/gbench/gbench/engine/resp"
	"github.com/gbench/gbench/script"
)

// cachedReader returns the function that runs the path's Cached command
// on its server's probe connection and reads the integer it answers; it
// runs on the prober thread, between samples' requests.
func (r *runner) cachedReader(p *Path) func() (int64, error) {
	prog, err := compileScript(p.Cached, script.Simple)
	if err != nil {
		return func() (int64, error) { return 0, err }
	}
	cmd := prog.Scripts[0].Commands[0]
	ps := r.byPath[p.Name]
	if cmd.Kind == script.CmdSQL {
		conn := ps.pg.pg
		return func() (int64, error) {
			ctx, cancel := context.WithTimeout(context.Background(), redisTimeout)
			defer cancel()
			rows, err := conn.QueryText(ctx, cmd.SQL.Text)
			if err != nil {
				return 0, err
			}
			if len(rows) != 1 || len(rows[0]) != 1 {
				return 0, fmt.Errorf("%q answered %d rows, want one integer", cmd.SQL.Text, len(rows))
			}
			return strconv.ParseInt(rows[0][0], 10, 64)
		}
	}
	buf, ends, _ := cmd.RESP.AppendArgs(script.NewVars(prog.Syms), nil, nil)
	args := splitArgs(buf, ends)
	rc := ps.redis.redisProbe
	return func() (int64, error) {
		vals, top, err := rc.rc.Call(args...)
		if err != nil {
			return 0, err
		}
		if vals[top].Kind != resp.KindInt {
			return 0, errors.New("redis " + args[0] + ": the answer is not an integer")
		}
		return vals[top].Int, nil
	}
}

// splitArgs cuts AppendArgs' buffer into its arguments.
func splitArgs(buf []byte, ends []int) []string {
	out := make([]string, len(ends))
	start := 0
	for i, e := range ends {
		out[i] = string(buf[start:e])
		start = e
	}
	return out
}
