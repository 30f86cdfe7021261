// A stdio MCP server with one tool, `echo`, so that the clients' hook inputs
// for MCP tools can be observed. Newline-delimited JSON-RPC, as MCP's stdio
// transport specifies.
const lines = require('readline').createInterface({ input: process.stdin });
const send = (message) => process.stdout.write(JSON.stringify(message) + '\n');
lines.on('line', (line) => {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return;
  }
  if (message.id === undefined) return;
  const reply = (result) => send({ jsonrpc: '2.0', id: message.id, result });
  switch (message.method) {
    case 'initialize':
      reply({
        protocolVersion: message.params.protocolVersion || '2024-11-05',
        capabilities: { tools: {} },
        serverInfo: { name: 'echo', version: '1.0.0' },
      });
      break;
    case 'tools/list':
      reply({
        tools: [{
          name: 'echo',
          description: 'Returns its text.',
          inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
        }],
      });
      break;
    case 'tools/call':
      reply({ content: [{ type: 'text', text: 'echo: ' + message.params.arguments.text }] });
      break;
    default:
      send({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'method not found' } });
  }
});
