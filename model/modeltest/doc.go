// Package modeltest holds test doubles and checks for [model.Model]:
//
//   - [Scripted], a model that answers from a script of turns and records
//     every request, for testing agent logic without a network;
//   - [Run], the conformance suite every provider must pass against a test
//     server speaking its wire format.
package modeltest
