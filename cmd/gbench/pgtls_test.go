package main

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gbench/gbench/internal/testsrv"
)

// TestPostgresClientCertificate runs gbench against a PostgreSQL that
// takes only TLS connections authenticated by a client certificate
// (pg_hba "hostssl ... cert"), through libpq's sslrootcert, sslcert,
// sslkey and sslmode=verify-full.
func TestPostgresClientCertificate(t *testing.T) {
	ca := testsrv.NewCA(t, "gbench test CA")
	srvCert, srvKey := ca.Issue(t, "localhost", "localhost", "127.0.0.1")
	pg := testsrv.StartPostgres(t, testsrv.PGOptions{
		Settings: map[string]string{"ssl": "on", "ssl_cert_file": "server.crt",
			"ssl_key_file": "server.key", "ssl_ca_file": "ca.crt"},
		Files: map[string][]byte{"server.crt": srvCert, "server.key": srvKey, "ca.crt": ca.Cert,
			"pg_hba.conf": []byte("local all all trust\nhostssl all all 127.0.0.1/32 cert\n")},
	})
	dir := t.TempDir()
	cert, key := ca.Issue(t, "postgres")
	other := testsrv.NewCA(t, "another CA")
	otherCert, otherKey := other.Issue(t, "postgres")
	files := map[string]string{
		"root": testsrv.WriteFile(t, dir, "root.crt", ca.Cert),
		"cert": testsrv.WriteFile(t, dir, "client.crt", cert),
		"key":  testsrv.WriteFile(t, dir, "client.key", key),
		"ocrt": testsrv.WriteFile(t, dir, "other.crt", otherCert),
		"okey": testsrv.WriteFile(t, dir, "other.key", otherKey),
	}
	script := testsrv.WriteFile(t, dir, "select.sql", []byte("SELECT 1;\n"))
	conninfo := func(extra string) string {
		return "host=localhost port=" + strconv.Itoa(pg.Port) + " user=postgres dbname=postgres " +
			"sslmode=verify-full sslrootcert=" + files["root"] + " " + extra
	}

	out := runGbench("-n", "-f", script, "-t", "5", conninfo("sslcert="+files["cert"]+" sslkey="+files["key"]))
	if out.code != 0 || !strings.Contains(out.stdout, "number of transactions actually processed: 5/5") {
		t.Fatalf("with the client certificate: exit %d\n%s%s", out.code, out.stdout, out.stderr)
	}

	for _, tc := range []struct{ name, extra, want string }{
		{"no client certificate", "", "connection requires a valid client certificate"},
		{"a certificate of another CA", "sslcert=" + files["ocrt"] + " sslkey=" + files["okey"], "connection requires a valid client certificate"},
		{"a missing certificate file", "sslcert=" + filepath.Join(dir, "none.crt") + " sslkey=" + files["key"], "none.crt"},
		{"a key that is not one", "sslcert=" + files["cert"] + " sslkey=" + files["root"], "a certificate rather than a key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := runGbench("-n", "-f", script, "-t", "5", conninfo(tc.extra))
			if out.code != 1 || !strings.Contains(out.stderr, tc.want) {
				t.Errorf("exit %d, want 1 and an error naming %q\n%s%s", out.code, tc.want, out.stdout, out.stderr)
			}
		})
	}
}
