package testsrv

import (
	"strconv"
	"testing"
)

// RedisTLS is what a TLS redis-server serves and trusts, PEM.
type RedisTLS struct {
	Cert, Key []byte // the server's certificate and key
	CA        []byte // the CAs of client certificates (--tls-ca-cert-file)
	// RequireClient makes the server refuse clients without a certificate
	// the CA signed (--tls-auth-clients yes).
	RequireClient bool
}

// StartRedisTLS is StartRedis with a TLS port too (r.TLSPort), serving tls;
// the plain port stays open for the helpers (Do, PING).
func StartRedisTLS(t testing.TB, tls RedisTLS, args ...string) *Redis {
	t.Helper()
	dir := newDir(t, nil)
	port := freePort(t)
	auth := "no"
	if tls.RequireClient {
		auth = "yes"
	}
	r := StartRedis(t, append([]string{"--tls-port", strconv.Itoa(port), "--tls-auth-clients", auth,
		"--tls-cert-file", WriteFile(t, dir, "server.crt", tls.Cert),
		"--tls-key-file", WriteFile(t, dir, "server.key", tls.Key),
		"--tls-ca-cert-file", WriteFile(t, dir, "ca.crt", tls.CA)}, args...)...)
	r.TLSPort = port
	return r
}
