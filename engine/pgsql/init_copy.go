package pgsql

import (
	"context"
	"io"
	"strconv"
	"time"
)

// initMaxRowLen bounds one generated COPY row: two 19-digit numbers and the
// rest of an accounts row fit with room to spare.
const initMaxRowLen = 64

// initRowFunc appends row k (0-based) of a table in COPY text format to b.
type initRowFunc func(b []byte, k int64) []byte

// initBranchRow is "bid 0 \N": the filler of pgbench_branches is NULL.
func initBranchRow(b []byte, k int64) []byte {
	b = strconv.AppendInt(b, k+1, 10)
	return append(b, "\t0\t\\N\n"...)
}

// initTellerRow is "tid bid 0 \N": ten tellers per branch, filler NULL.
func initTellerRow(b []byte, k int64) []byte {
	b = strconv.AppendInt(b, k+1, 10)
	b = append(b, '\t')
	b = strconv.AppendInt(b, k/initTellersPerBranch+1, 10)
	return append(b, "\t0\t\\N\n"...)
}

// initAccountRow is "aid bid 0 <empty>": the filler is an empty string, which
// char(84) pads with blanks.
func initAccountRow(b []byte, k int64) []byte {
	b = strconv.AppendInt(b, k+1, 10)
	b = append(b, '\t')
	b = strconv.AppendInt(b, k/initAccountsPerBranch+1, 10)
	return append(b, "\t0\t\n"...)
}

// initRowReader is an io.Reader of the COPY text of a table's rows, generated on
// the fly straight into the caller's buffer. It checks ctx before each chunk
// and reports progress after the rows where prog wants it. pgconn calls Read
// from its own goroutine, but never concurrently and always before CopyFrom
// returns.
type initRowReader struct {
	ctx   context.Context
	row   initRowFunc
	done  int64 // rows generated so far
	total int64
	prog  *initProgress // nil: no progress lines
	mark  int64         // row count at which to call prog next
	spill []byte        // rest of a row that did not fit a small p
	err   error         // first error of ours, as opposed to the server's
}

// newInitRowReader returns a reader of total rows; prog may be nil.
func newInitRowReader(ctx context.Context, row initRowFunc, total int64, prog *initProgress) *initRowReader {
	r := &initRowReader{ctx: ctx, row: row, total: total, prog: prog, mark: -1}
	if prog != nil {
		r.mark = prog.every()
	}
	return r
}

// Read fills p with whole rows; a p too small for a row is served from spill.
func (r *initRowReader) Read(p []byte) (int, error) {
	if len(r.spill) > 0 {
		n := copy(p, r.spill)
		r.spill = r.spill[n:]
		return n, nil
	}
	if r.err != nil {
		return 0, r.err
	}
	if r.done >= r.total {
		return 0, io.EOF
	}
	if err := r.ctx.Err(); err != nil {
		r.err = err
		return 0, err
	}
	if len(p) < initMaxRowLen {
		r.spill = r.fill(make([]byte, 0, initMaxRowLen))
		return r.Read(p)
	}
	b := r.fill(p[:0:len(p)])
	return len(b), r.err
}

// fill appends rows to b while room for one more remains, and stops after a
// failed progress write.
func (r *initRowReader) fill(b []byte) []byte {
	for r.done < r.total && cap(b)-len(b) >= initMaxRowLen {
		b = r.row(b, r.done)
		r.done++
		if r.done == r.mark {
			r.mark += r.prog.every()
			if r.err = r.prog.report(r.done); r.err != nil {
				break
			}
		}
	}
	return b
}

// generateClientSide is step 'g': one transaction that truncates the tables
// and COPYs branches, tellers and accounts, in that order so that existing
// foreign keys hold. pgbench 15 inserts branches and tellers one row per
// INSERT; COPY stores the same rows in one round trip.
func (in *initializer) generateClientSide() error {
	if err := in.say("generating data (client-side)..."); err != nil {
		return err
	}
	if err := in.execAll("begin", initTruncateSQL); err != nil {
		return err
	}
	freeze := initServerMajor(in.conn) >= 14
	scale := int64(in.o.Scale)
	if err := in.copyRows("pgbench_branches", freeze, initBranchRow, scale, nil); err != nil {
		return err
	}
	if err := in.copyRows("pgbench_tellers", freeze, initTellerRow, initTellersPerBranch*scale, nil); err != nil {
		return err
	}
	if err := in.copyAccounts(freeze && in.o.Partitions <= 0); err != nil {
		return err
	}
	return in.execAll("commit")
}

// copyAccounts loads pgbench_accounts with progress lines, and on a terminal
// ends the last '\r' line with a newline as pgbench does.
func (in *initializer) copyAccounts(freeze bool) error {
	total := initAccountRows(in.o.Scale)
	prog := newInitProgress(in.log, total, in.o.Quiet, in.tty, time.Now)
	err := in.copyRows("pgbench_accounts", freeze, initAccountRow, total, prog)
	if ferr := prog.finish(); err == nil {
		err = ferr
	}
	return err
}

// copyRows streams total rows of table through one COPY FROM STDIN.
func (in *initializer) copyRows(table string, freeze bool, row initRowFunc, total int64, prog *initProgress) error {
	sql := initCopySQL(table, freeze)
	r := newInitRowReader(in.ctx, row, total, prog)
	_, err := in.conn.copyFrom(in.ctx, r, sql)
	switch {
	case in.ctx.Err() != nil:
		return in.ctx.Err()
	case r.err != nil:
		return r.err
	case err != nil:
		return &InitError{SQL: sql, Err: err}
	}
	return nil
}
