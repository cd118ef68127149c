module github.com/sandtable/sandtable

go 1.26.0

require (
	github.com/dave/jennifer v1.7.1
	github.com/sebdah/goldie/v2 v2.8.0
	golang.org/x/sys v0.50.0
	gopkg.in/yaml.v3 v3.0.1
	honnef.co/go/tools v0.8.2
)

require (
	github.com/BurntSushi/toml v1.4.1-0.20240526193622-a339e1f7089c // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	github.com/sergi/go-diff v1.0.0 // indirect
	golang.org/x/exp/typeparams v0.0.0-20231108232855-2478ac86f678 // indirect
	golang.org/x/mod v0.41.0 // indirect
	golang.org/x/sync v0.23.0 // indirect
	golang.org/x/tools v0.51.0 // indirect
)
