package testsrv

import (
	"crypto/tls"
	"crypto/x509"
	"testing"
)

// ClusterTLS is what the nodes of a TLS cluster serve and trust, PEM.
type ClusterTLS struct {
	Cert, Key []byte // the nodes' certificate and key, also their client one (cluster bus, replication)
	CA        []byte // the CA of all certificates
}

// StartClusterTLS is StartCluster with nodes that serve TLS only (--port 0,
// --tls-port Port), speak TLS to each other (--tls-cluster yes,
// --tls-replication yes) and refuse clients without a certificate the CA
// signed (--tls-auth-clients yes). Each node's Port is its TLS port; its
// Do speaks TLS with the nodes' certificate.
func StartClusterTLS(t testing.TB, c ClusterTLS, args ...string) *Cluster {
	t.Helper()
	dir := newDir(t, nil)
	crt, key, ca := WriteFile(t, dir, "node.crt", c.Cert), WriteFile(t, dir, "node.key", c.Key), WriteFile(t, dir, "ca.crt", c.CA)
	pair, err := tls.X509KeyPair(c.Cert, c.Key)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(c.CA)
	client := &tls.Config{Certificates: []tls.Certificate{pair}, RootCAs: pool}
	cli := []string{"--tls", "--cacert", ca, "--cert", crt, "--key", key}
	return startCluster(t, client, cli, append([]string{"--tls-cluster", "yes", "--tls-replication", "yes",
		"--tls-auth-clients", "yes", "--tls-cert-file", crt, "--tls-key-file", key, "--tls-ca-cert-file", ca}, args...)...)
}
