package main

import (
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/gbench/gbench/internal/testsrv"
)

// TestRedisClientCertificate runs gbench against a redis-server that
// requires a client certificate (--tls-auth-clients yes), through the
// rediss:// TLS parameters.
func TestRedisClientCertificate(t *testing.T) {
	ca := testsrv.NewCA(t, "gbench test CA")
	srvCert, srvKey := ca.Issue(t, "redis", "127.0.0.1", "redis.test")
	rd := testsrv.StartRedisTLS(t, testsrv.RedisTLS{Cert: srvCert, Key: srvKey, CA: ca.Cert, RequireClient: true})
	dir := t.TempDir()
	cert, key := ca.Issue(t, "client")
	other := testsrv.NewCA(t, "another CA")
	q := url.QueryEscape
	base := "rediss://127.0.0.1:" + strconv.Itoa(rd.TLSPort) + "/0?tls_ca_cert=" + q(testsrv.WriteFile(t, dir, "ca.crt", ca.Cert))
	withCert := base + "&tls_cert=" + q(testsrv.WriteFile(t, dir, "client.crt", cert)) +
		"&tls_key=" + q(testsrv.WriteFile(t, dir, "client.key", key))
	script := testsrv.WriteFile(t, dir, "get.sql", []byte("\\resp SET gbench:tls v\n\\resp GET gbench:tls\n"))

	// Every transport: the epoll one once unwrapped the socket under a
	// tls.Conn one level too far and refused every rediss:// run.
	for _, tr := range []string{"io_uring", "epoll", "portable"} {
		t.Setenv("GBENCH_TRANSPORT", tr)
		out := runGbench("-f", script, "-t", "5", "--resp", withCert+"&tls_sni=redis.test")
		if out.code != 0 || !strings.Contains(out.stdout, "number of transactions actually processed: 5/5") {
			t.Fatalf("%s, with the client certificate: exit %d\n%s%s", tr, out.code, out.stdout, out.stderr)
		}
	}
	t.Setenv("GBENCH_TRANSPORT", "")
	out := runGbench("-f", script, "-t", "5", "--resp", withCert+"&tls_sni=redis.test")
	if out.code != 0 || !strings.Contains(out.stdout, "number of transactions actually processed: 5/5") {
		t.Fatalf("with the client certificate: exit %d\n%s%s", out.code, out.stdout, out.stderr)
	}
	for _, tc := range []struct{ name, url, want string }{
		{"no client certificate", base, "redis TLS handshake with rediss://127.0.0.1:"},
		{"the wrong CA", "rediss://127.0.0.1:" + strconv.Itoa(rd.TLSPort) + "?tls_ca_cert=" +
			q(testsrv.WriteFile(t, dir, "other.crt", other.Cert)), "certificate signed by unknown authority"},
		{"a missing key file", base + "&tls_cert=" + q(dir+"/client.crt") + "&tls_key=" + q(dir+"/none.key"), dir + "/none.key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := runGbench("-f", script, "-t", "5", "--resp", tc.url)
			if out.code != 1 || !strings.Contains(out.stderr, tc.want) {
				t.Errorf("exit %d, want 1 and an error with %q\n%s%s", out.code, tc.want, out.stdout, out.stderr)
			}
		})
	}
}
