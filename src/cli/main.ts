/** The `legalwork` command. */
import { start } from '../server.ts';

const [command = 'help'] = process.argv.slice(2);

if (command === 'serve') {
  const { address } = await start();
  process.stderr.write(`legalwork listening on ${address}\n`);
} else {
  process.stdout.write('usage: legalwork serve\n');
  process.exitCode = command === 'help' || command === '--help' ? 0 : 2;
}
