// Package validate checks the Kubernetes manifests of deploy/kubernetes
// offline, in a module of its own so that the Kubernetes API types and
// kustomize stay out of gbench's module. Its test renders the base and
// every overlay with kustomize's Go API (krusty), decodes every object
// strictly into the Kubernetes API types (an unknown or misspelled field
// fails), and checks what gbench needs of them: an Indexed Job with as
// many pods at once as completions, the workers' count and index and the
// run id in the variables gbench reads, options gbench accepts, a non-root
// image, and the metrics port declared where Prometheus looks for it.
//
// Run it from this directory: go test ./...
package validate
