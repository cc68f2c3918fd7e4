/**
 * A service process for the handover test (issue 38, item 3): the service
 * on the journal the environment names (PostgreSQL), as `legalwork serve`
 * builds it, but posting its Gigs over HTTP to a supply network the test
 * plays (LEGALWORK_TEST_SUPPLY_URL), so the test can hold a post open and
 * SIGKILL the process mid-post. Each post names the process that sent it
 * (LEGALWORK_TEST_PROCESS). Prints `listening on <url>` as the service does.
 */
import { createApp } from '../../src/compose.ts';
import { SupplyRefused, type SupplyNetwork } from '../../src/domain/supply-network.ts';
import { webhookOptionsFromEnv } from '../../src/engine/webhooks.ts';
import { journalFromEnv } from '../../src/server.ts';

const supplyUrl = process.env.LEGALWORK_TEST_SUPPLY_URL;
if (!supplyUrl) throw new Error('LEGALWORK_TEST_SUPPLY_URL is not set');

const supply: SupplyNetwork = {
  async post(gig) {
    const res = await fetch(supplyUrl, { method: 'POST', headers: { 'content-type': 'application/json', 'x-process': process.env.LEGALWORK_TEST_PROCESS ?? '?' }, body: JSON.stringify(gig) });
    if (!res.ok) throw new SupplyRefused(`the test's supply network answered ${res.status}`);
    return (await res.json()) as Awaited<ReturnType<SupplyNetwork['post']>>;
  },
};

const journal = await journalFromEnv(process.env.LEGALWORK_DATA ?? '');
const app = await createApp({ journal, supply, logger: false, webhooks: webhookOptionsFromEnv(process.env) });
app.addHook('onClose', async () => journal.close());
const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.stderr.write(`listening on ${address}\n`);
