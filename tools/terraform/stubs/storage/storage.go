// Package storage stands in for the Google Cloud Storage client, which
// only go-getter's "gcs" module source imports in this build: that client
// brings gRPC's xDS and Envoy's API, whose package initialisation was
// half of every terraform run's start-up (some 30 ms of 66, and the
// suite starts terraform some ten thousand times). A module source on
// gs:// or storage.googleapis.com is refused: the test CLI installs
// modules from local paths and the registry only.
package storage

import (
	"context"
	"errors"

	"google.golang.org/api/option"
)

// errRefused is every call's answer.
var errRefused = errors.New("this terraform, built for the provider's tests, installs no modules from Google " +
	"Cloud Storage (tools/terraform/stubs/storage)")

// Client is a client that cannot be made.
type Client struct{}

// NewClient refuses.
func NewClient(context.Context, ...option.ClientOption) (*Client, error) { return nil, errRefused }

// Query is an object listing's query.
type Query struct{ Prefix string }

// BucketHandle is a bucket.
type BucketHandle struct{}

// Bucket names a bucket.
func (*Client) Bucket(string) *BucketHandle { return &BucketHandle{} }

// ObjectIterator lists nothing.
type ObjectIterator struct{}

// Objects lists a bucket's objects.
func (*BucketHandle) Objects(context.Context, *Query) *ObjectIterator { return &ObjectIterator{} }

// ObjectAttrs are an object's attributes.
type ObjectAttrs struct{ Name string }

// Next refuses.
func (*ObjectIterator) Next() (*ObjectAttrs, error) { return nil, errRefused }

// ObjectHandle is an object.
type ObjectHandle struct{}

// Object names an object.
func (*BucketHandle) Object(string) *ObjectHandle { return &ObjectHandle{} }

// Generation names a generation of the object.
func (o *ObjectHandle) Generation(int64) *ObjectHandle { return o }

// Reader reads an object.
type Reader struct{}

// NewReader refuses.
func (*ObjectHandle) NewReader(context.Context) (*Reader, error) { return nil, errRefused }

// Read reads nothing.
func (*Reader) Read([]byte) (int, error) { return 0, errRefused }

// Close closes nothing.
func (*Reader) Close() error { return nil }
