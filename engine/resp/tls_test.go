package resp

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// selfSigned writes a certificate for 127.0.0.1 and its key to dir and
// returns the certificate.
func selfSigned(t *testing.T, dir string) *x509.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "gbench test"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA:         true,

		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	writePEM(t, filepath.Join(dir, "cert.pem"), "CERTIFICATE", der)
	writePEM(t, filepath.Join(dir, "key.pem"), "EC PRIVATE KEY", keyDER)
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert
}

func writePEM(t *testing.T, path, typ string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestDialTLS(t *testing.T) {
	dir := t.TempDir()
	cert := selfSigned(t, dir)
	port := freePort(t)
	runRedis(t, "--port", "0", "--tls-port", strconv.Itoa(port), "--tls-auth-clients", "no",
		"--tls-cert-file", filepath.Join(dir, "cert.pem"), "--tls-key-file", filepath.Join(dir, "key.pem"))
	addr := "127.0.0.1:" + strconv.Itoa(port)

	c := dialClient(t, "rediss://alice:"+alicePassword+"@"+addr+"/1?insecure_skip_verify=true")
	c.do(t, `bulk "alice"`, "ACL", "WHOAMI")

	err := dialErr(t, "rediss://alice:"+alicePassword+"@"+addr)
	if !strings.Contains(err.Error(), "certificate") || strings.Contains(err.Error(), alicePassword) {
		t.Errorf("unverified certificate: %v", err)
	}

	o, err := ParseURL("rediss://:" + defaultPassword + "@" + addr + "?protocol=3")
	if err != nil {
		t.Fatal(err)
	}
	o.TLS.RootCAs = x509.NewCertPool()
	o.TLS.RootCAs.AddCert(cert)
	conn, err := Dial(context.Background(), o)
	if err != nil {
		t.Fatalf("Dial with the CA: %v", err)
	}
	defer conn.Close()
	if _, ok := conn.(*tls.Conn); !ok {
		t.Errorf("Dial returned a %T, want a *tls.Conn", conn)
	}
}
