package pgsql

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/gbench/gbench/internal/testsrv"
	"github.com/jackc/pgx/v5/pgproto3"
)

// TestConnectFindsTheNewPrimary: Connect chooses the host afresh on every
// call. With a host list and target_session_attrs=read-write, a client
// that connects again after its primary stopped and the standby was
// promoted reaches the new primary; before the promotion it refuses the
// standby.
func TestConnectFindsTheNewPrimary(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two PostgreSQL servers")
	}
	primary := testsrv.StartPostgres(t, testsrv.PGOptions{})
	standby := primary.Replica(t)
	conninfo := fmt.Sprintf("host=127.0.0.1,127.0.0.1 port=%d,%d user=postgres dbname=postgres sslmode=disable target_session_attrs=read-write connect_timeout=5",
		primary.Port, standby.Port)
	cfg, err := ParseConfig(conninfo)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	if port, recovery := whereConnected(ctx, t, cfg); port != primary.Port || recovery {
		t.Fatalf("before the failover: connected to port %d (in recovery %v), want the primary %d", port, recovery, primary.Port)
	}
	primary.Stop()
	if _, err := cfg.Connect(ctx, nil); err == nil {
		t.Fatal("connected read-write with the primary stopped and the standby not promoted")
	}
	standby.Promote()
	if port, recovery := whereConnected(ctx, t, cfg); port != standby.Port || recovery {
		t.Fatalf("after the failover: connected to port %d (in recovery %v), want the promoted standby %d", port, recovery, standby.Port)
	}
}

// whereConnected connects with Connect (as the engine does when a client
// reconnects) and asks the server, on that connection, its port and
// pg_is_in_recovery().
func whereConnected(ctx context.Context, t *testing.T, cfg *Config) (int, bool) {
	t.Helper()
	conn, err := cfg.Connect(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Net.Close()
	conn.Net.SetDeadline(time.Now().Add(10 * time.Second))
	fe := pgproto3.NewFrontend(conn.Net, conn.Net)
	fe.Send(&pgproto3.Query{String: "SELECT current_setting('port'), pg_is_in_recovery()"})
	if err := fe.Flush(); err != nil {
		t.Fatal(err)
	}
	var port int
	var recovery bool
	for {
		msg, err := fe.Receive()
		if err != nil {
			t.Fatal(err)
		}
		switch m := msg.(type) {
		case *pgproto3.DataRow:
			fmt.Sscan(string(m.Values[0]), &port)
			recovery = string(m.Values[1]) == "t"
		case *pgproto3.ErrorResponse:
			t.Fatalf("query: %s", m.Message)
		case *pgproto3.ReadyForQuery:
			return port, recovery
		}
	}
}
