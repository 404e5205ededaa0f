module github.com/gbench/gbench

go 1.26.0

require (
	github.com/HdrHistogram/hdrhistogram-go v1.4.0
	github.com/alecthomas/participle/v2 v2.1.4
	github.com/jackc/pgx/v5 v5.12.0
	github.com/spf13/pflag v1.1.0
	golang.org/x/sys v0.50.0
)

require (
	github.com/jackc/pgpassfile v1.0.0 // indirect
	github.com/jackc/pgservicefile v0.0.0-20240606120523-5a60cdf6a761 // indirect
	golang.org/x/text v0.41.0 // indirect
)
