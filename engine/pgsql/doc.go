// Package pgsql is gbench's PostgreSQL side, and the only package that
// speaks pgx.
//
//   - Connecting: ParseConfig reads a libpq connection string (keywords or
//     a URI, load_balance_hosts, target_session_attrs, the socket options);
//     Config.Connect opens a connection with pgconn, with sockets from the
//     engine's dial, and takes it over as a Conn. Connector wraps an Opener
//     (a *Config, or the matrix's warming one) into the engine's
//     driver.Connector.
//   - The driver: Session implements driver.Driver and its optional
//     abilities for the wire protocol (pgproto3 messages): simple, extended
//     and prepared query modes, pipelines, transaction status, errors with
//     pgbench's wording. A Session belongs to one client connection.
//   - Outside the benchmark: Client for setup queries, Init for pgbench -i
//     (tables, COPY, keys, vacuum), ReadTableInfo, Rendezvous for fleets.
//   - Connection strings for people: conninfo.go reads URIs as libpq
//     does; redact.go is the one password redactor (RedactConninfo for a
//     connection string, Redact and Config.Redact for any other text,
//     Config.ErrorText for a failed query, ParseConfigError for pgx's
//     refusals), so that nothing gbench prints holds a password.
//
// The package never imports engine or engine/stats: measurement wraps the
// driver.
package pgsql
