// Three log lines that a client which set a log level hears as
// notifications/message: tools.log sends one at once, while the code
// runs; a console line is sent when the code ends.
await tools.log({message: 'Tool execution started'});
await tools.log({message: 'Tool processing data', level: 'info'});
console.info('Tool execution completed');
'Logging completed'
