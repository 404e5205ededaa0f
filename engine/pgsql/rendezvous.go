package pgsql

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Rendezvous is where the workers of a run over several machines meet on a
// PostgreSQL server (it implements fleet.Server) without writing
// anything: each worker's arrival is a session of its own, named
// "gbench-fleet KEY INDEX" by its application_name, and the session's
// backend_start in pg_stat_activity is the arrival's time on the server's
// clock. The session stays open until Close, so a worker that dies leaves
// no trace. The workers must see each other's sessions there: connect
// them as one role (or as roles with pg_read_all_stats).
type Rendezvous struct {
	cfg  *Config
	conn *Client
}

// Rendezvous returns a meeting place on the configured server.
func (c *Config) Rendezvous() *Rendezvous { return &Rendezvous{cfg: c} }

// fleetName is a worker's application_name; it fits the 63 bytes of a
// name.
func fleetName(key string, index int) string {
	return "gbench-fleet " + key + " " + strconv.Itoa(index)
}

// Arrive opens the worker's session; fresh is false when a session of
// the same worker is there already.
func (r *Rendezvous) Arrive(ctx context.Context, key string, index int) (bool, error) {
	if r.conn != nil {
		return false, errors.New("arrived already")
	}
	cfg := r.cfg.pg.Copy()
	cfg.RuntimeParams = map[string]string{}
	for k, v := range r.cfg.pg.RuntimeParams {
		cfg.RuntimeParams[k] = v
	}
	name := fleetName(key, index)
	cfg.RuntimeParams["application_name"] = name
	conn, err := (&Config{pg: cfg, opts: r.cfg.opts}).Open(ctx)
	if err != nil {
		return false, err
	}
	rows, err := conn.QueryText(ctx, "SELECT count(*) FROM pg_catalog.pg_stat_activity WHERE application_name = $1 AND pid <> pg_catalog.pg_backend_pid()", name)
	if err != nil {
		conn.Close()
		return false, err
	}
	if rows[0][0] != "0" {
		conn.Close()
		return false, nil
	}
	r.conn = conn
	return true, nil
}

// Arrivals reads the sessions of the run's workers, and the server's
// clock, in one round trip.
func (r *Rendezvous) Arrivals(ctx context.Context, key string) (map[int]time.Time, time.Time, error) {
	if r.conn == nil {
		return nil, time.Time{}, errors.New("not arrived")
	}
	if strings.ContainsAny(key, `'\%_ `) {
		return nil, time.Time{}, fmt.Errorf("invalid run key %q", key)
	}
	sql := "SELECT (extract(epoch FROM pg_catalog.clock_timestamp()) * 1000000)::bigint;" +
		" SELECT application_name, (extract(epoch FROM backend_start) * 1000000)::bigint" +
		" FROM pg_catalog.pg_stat_activity WHERE application_name LIKE 'gbench-fleet " + key + " %'"
	res, err := r.conn.pc.Exec(ctx, sql).ReadAll()
	if err != nil {
		return nil, time.Time{}, err
	}
	if len(res) != 2 || len(res[0].Rows) != 1 {
		return nil, time.Time{}, errors.New("unexpected reply to the rendezvous query")
	}
	now, err := micros(res[0].Rows[0][0])
	if err != nil {
		return nil, time.Time{}, err
	}
	arr := map[int]time.Time{}
	for _, row := range res[1].Rows {
		name := string(row[0])
		k, err := strconv.Atoi(name[strings.LastIndexByte(name, ' ')+1:])
		if err != nil {
			return nil, time.Time{}, fmt.Errorf("a session named %q is not a worker's", name)
		}
		if row[1] == nil {
			return nil, time.Time{}, fmt.Errorf("pg_stat_activity hides when session %q started: connect every worker as the same role, or grant pg_read_all_stats", name)
		}
		t, err := micros(row[1])
		if err != nil {
			return nil, time.Time{}, err
		}
		if prev, dup := arr[k]; !dup || t.Before(prev) {
			arr[k] = t
		}
	}
	return arr, now, nil
}

// micros reads microseconds since the epoch.
func micros(b []byte) (time.Time, error) {
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("not a time in microseconds: %q", b)
	}
	return time.UnixMicro(n).UTC(), nil
}

// Close ends the worker's session. Its name is taken back first: a
// backend outlives the closing of its connection for a moment, and until
// it is gone pg_stat_activity would still show the worker as arrived (the
// same run id meeting again right after saw its old arrivals).
func (r *Rendezvous) Close() error {
	if r.conn == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	err := r.conn.Exec(ctx, "SET application_name = 'gbench-fleet left'")
	err = errors.Join(err, r.conn.Close())
	r.conn = nil
	return err
}
