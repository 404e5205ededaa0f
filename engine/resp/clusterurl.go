package resp

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strings"
)

// cluster parses "host[:port][,host[:port]...]" of a redis+cluster or
// rediss+cluster URL.
func (p *urlParser) cluster(u urlParts) error {
	hosts, path, hasPath := strings.Cut(u.rest, "/")
	if hasPath && path != "" {
		return errors.New("a cluster has only database 0: a redis+cluster URL takes no /db")
	}
	for hp := range strings.SplitSeq(hosts, ",") {
		host, port, err := splitHostPort(hp, DefaultPort)
		if err != nil {
			return err
		}
		p.o.Seeds = append(p.o.Seeds, net.JoinHostPort(host, port))
	}
	p.o.Network, p.o.Addr, p.o.Cluster = "tcp", p.o.Seeds[0], true
	p.clusterScheme = true
	if u.scheme == "rediss+cluster" {
		p.o.TLS = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	return nil
}

// clusterParam applies cluster=yes|no.
func (p *urlParser) clusterParam(val string) error {
	if p.clusterSet {
		return errors.New("cluster given twice")
	}
	p.clusterSet = true
	switch strings.ToLower(val) {
	case "yes", "true", "1", "on":
		if p.o.MasterName != "" || p.o.Network == "unix" {
			return errors.New("cluster=yes needs a redis://, rediss:// or redis+cluster:// URL")
		}
		p.o.Cluster = true
	case "no", "false", "0", "off":
		if p.clusterScheme {
			return errors.New("cluster=no contradicts a redis+cluster:// URL")
		}
	default:
		return fmt.Errorf("invalid cluster %q: want yes or no", val)
	}
	return nil
}

// rfr applies rfr=no|yes|all.
func (p *urlParser) rfr(val string) error {
	if p.rfrSet {
		return errors.New("rfr given twice")
	}
	p.rfrSet = true
	switch strings.ToLower(val) {
	case "no":
		p.o.ReadFrom = ReadMasters
	case "yes":
		p.o.ReadFrom = ReadReplicas
	case "all":
		p.o.ReadFrom = ReadAll
	default:
		return fmt.Errorf("invalid rfr %q: want no, yes (replicas) or all (masters and replicas)", val)
	}
	return nil
}

// split applies split=slot|no.
func (p *urlParser) split(val string) error {
	if p.splitSet {
		return errors.New("split given twice")
	}
	p.splitSet = true
	switch strings.ToLower(val) {
	case "slot":
		p.o.Split = true
	case "no":
		p.o.Split = false
	default:
		return fmt.Errorf("invalid split %q: want slot (one part per hash slot) or no", val)
	}
	return nil
}

// checkCluster checks what a cluster URL cannot have, once every part is
// read.
func (p *urlParser) checkCluster() error {
	if !p.o.Cluster {
		if p.rfrSet {
			return errors.New("rfr needs a cluster: a redis+cluster:// URL or cluster=yes")
		}
		if p.splitSet {
			return errors.New("split needs a cluster: a redis+cluster:// URL or cluster=yes")
		}
		return nil
	}
	if p.o.DB != 0 {
		return errors.New("a cluster has only database 0")
	}
	if len(p.o.Seeds) == 0 {
		p.o.Seeds = []string{p.o.Addr}
	}
	return nil
}
