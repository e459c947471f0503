// Three console lines: the client that set a log level hears them as
// notifications/message.
console.info('Tool execution started');
console.info('Tool processing data');
console.info('Tool execution completed');
'Logging completed'
