module cloud.google.com/go/storage

go 1.26.0

require google.golang.org/api v0.0.0
