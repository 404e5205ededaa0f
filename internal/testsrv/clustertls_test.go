package testsrv_test

import (
	"strings"
	"testing"

	"github.com/gbench/gbench/internal/testsrv"
)

// TestStartClusterTLS: the nodes of a TLS cluster answer only over TLS,
// and their slot map names their TLS ports (StartClusterTLS has waited for
// every replica's link, which only TLS can carry).
func TestStartClusterTLS(t *testing.T) {
	ca := testsrv.NewCA(t, "testsrv cluster CA")
	cert, key := ca.Issue(t, "node", "127.0.0.1")
	c := testsrv.StartClusterTLS(t, testsrv.ClusterTLS{Cert: cert, Key: key, CA: ca.Cert})
	for _, r := range c.Nodes {
		if r.TLSPort != r.Port {
			t.Errorf("node %s: TLSPort %d, want its Port", r.Addr(), r.TLSPort)
		}
		if out, err := testsrv.Command(r.Addr(), "PING"); err == nil {
			t.Errorf("node %s answered a plain PING: %q", r.Addr(), out)
		}
	}
	slots, err := c.Nodes[0].Do("CLUSTER", "SLOTS")
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range c.Addrs() {
		port := a[strings.LastIndexByte(a, ':')+1:]
		if !strings.Contains(slots, "\n"+port+"\n") {
			t.Errorf("CLUSTER SLOTS does not name port %s\n%s", port, slots)
		}
	}
}
