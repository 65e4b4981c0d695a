package mcpserver

// ExpectToolSchemas lets the end-to-end tests (package mcpserver_test)
// check the schemas that the real server lists as these tests check the
// in-process one's.
var ExpectToolSchemas = expectToolSchemas
