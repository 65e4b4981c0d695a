module github.com/ask-confirm/ask-confirm/scripts/benchtool

go 1.26.0

require (
	github.com/ask-confirm/ask-confirm v0.0.0-00010101000000-000000000000
	go.etcd.io/bbolt v1.5.0
)

require (
	github.com/adrg/xdg v0.5.3 // indirect
	github.com/akavel/rsrc v0.10.2 // indirect
	github.com/dchest/jsmin v1.0.0 // indirect
	github.com/josephspurrier/goversioninfo v1.7.0 // indirect
	github.com/ncruces/zenity v0.10.15 // indirect
	github.com/randall77/makefat v0.0.0-20260406194835-1b91746796b7 // indirect
	github.com/rivo/uniseg v0.4.7 // indirect
	golang.org/x/image v0.44.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/text v0.40.0 // indirect
)

replace github.com/ask-confirm/ask-confirm => ../..
