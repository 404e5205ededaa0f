package pgsql

import (
	"context"
	"math/rand/v2"

	"github.com/jackc/pgx/v5/pgconn"
)

// shuffleHosts puts the hosts of cfg in a random order, as libpq does for
// load_balance_hosts=random on every connection. pgconn lists a host once
// per TLS attempt (sslmode=prefer: with TLS, then without), so the entries
// of one host:port stay together, in their order.
func shuffleHosts(cfg *pgconn.Config) {
	all := append([]*pgconn.FallbackConfig{{Host: cfg.Host, Port: cfg.Port, TLSConfig: cfg.TLSConfig}}, cfg.Fallbacks...)
	var groups [][]*pgconn.FallbackConfig
	for i, f := range all {
		if i > 0 && f.Host == all[i-1].Host && f.Port == all[i-1].Port {
			groups[len(groups)-1] = append(groups[len(groups)-1], f)
			continue
		}
		groups = append(groups, []*pgconn.FallbackConfig{f})
	}
	rand.Shuffle(len(groups), func(i, j int) { groups[i], groups[j] = groups[j], groups[i] })
	all = all[:0]
	for _, g := range groups {
		all = append(all, g...)
	}
	cfg.Host, cfg.Port, cfg.TLSConfig = all[0].Host, all[0].Port, all[0].TLSConfig
	cfg.Fallbacks = all[1:]
}

// shuffledLookup returns lookup with its addresses in a random order, as
// libpq shuffles the addresses a host name resolves to. pgconn does not
// look up IP addresses and socket directories.
func shuffledLookup(lookup pgconn.LookupFunc) pgconn.LookupFunc {
	return func(ctx context.Context, host string) ([]string, error) {
		addrs, err := lookup(ctx, host)
		rand.Shuffle(len(addrs), func(i, j int) { addrs[i], addrs[j] = addrs[j], addrs[i] })
		return addrs, err
	}
}
