import { createProject, createSegment, evmAddress, randomEvmAddress, useStackWithProject } from '../helpers/fixtures';
import { adminPaths, requireTaxInfo, signedInAffiliate, TIN, w9 } from '../tax/tax-forms';

/**
 * Every identifier is made canonical once, at the HTTP edge, before any service sees it: UUIDs in
 * lowercase, users in the canonical form of their type. A caller who spells an id otherwise
 * reaches the same resource and can no longer store (or seal) it in another spelling.
 */
describe('identifiers are canonical from the HTTP edge on', () => {
  const { stack, project } = useStackWithProject();
  beforeAll(() => requireTaxInfo(stack, project));

  it('stores a tax form posted under an UPPERCASE project id under the canonical id, readable by every read', async () => {
    const affiliate = await signedInAffiliate(stack, project);
    const upper = `/api/v1/projects/${project.id.toUpperCase()}/affiliate-portal`;

    const submitted = await stack.api.post(`${upper}/tax-info`, { key: await affiliate.token(), body: w9() });
    expect(submitted.status).toBe(201);
    expect(submitted.body.tax_id_number).toBe('*****6789');

    const { rows } = await stack.db.query('SELECT project_id::text AS project_id FROM tax.tax_records WHERE id = $1', [submitted.body.id]);
    expect(rows).toEqual([{ project_id: project.id }]);
    const own = await affiliate.taxInfo();
    expect(own.status).toBe(200);
    expect(own.body.tax_id_number).toBe('*****6789');
    const ownUpper = await stack.api.get(`${upper}/tax-info`, { key: await affiliate.token() });
    expect(ownUpper.body.id).toBe(submitted.body.id);

    const paths = adminPaths(project, affiliate.wallet.address);
    const unmasked = await stack.api.get(paths.taxStatus, { key: project.keys.admin });
    expect(unmasked.status).toBe(200);
    expect(unmasked.body.tax_info.tax_id_number).toBe(TIN.ssn);
    const queue = await stack.api.get(`${paths.submissions}?status=submitted`, { key: project.keys.admin });
    expect(queue.status).toBe(200);
    expect(queue.body.results.map((item: { id: string }) => item.id)).toContain(submitted.body.id);

    // The affiliate can still correct the form, under either spelling.
    const again = await stack.api.post(`${upper}/tax-info`, { key: await affiliate.token(), body: w9({ legal_name: 'Ada King' }) });
    expect(again.status).toBe(201);
    expect((await affiliate.taxInfo()).body.legal_name).toBe('Ada King');
  });

  it('takes an API key’s project id in any letter case as the same project', async () => {
    const response = await stack.api.get(`/api/v1/projects/${project.id.toUpperCase()}/tax-settings`, { key: project.keys.admin });
    expect(response.status).toBe(200);
    expect(response.body.require_tax_info).toBe(true);
    const other = await createProject(stack);
    const foreign = await stack.api.get(`/api/v1/projects/${other.id.toUpperCase()}/tax-settings`, { key: project.keys.admin });
    expect(foreign.status).toBe(404);
  });

  it('finds segments, batch jobs and keys by ids in any letter case', async () => {
    const segment = await createSegment(stack, project);
    const upperSegment = segment.id.toUpperCase();
    const job = await stack.api.post(`/v1/audience-segments/${upperSegment}/entries/batch?wait=true`, {
      key: project.keys.service,
      body: { entries: [{ identifier: evmAddress(7), identifier_type: 'evm_address' }] },
    });
    expect(job.status).toBe(200);
    const { rows } = await stack.db.query('SELECT segment_id::text AS segment_id FROM audience.entry_batches WHERE id = $1', [job.body.job_id]);
    expect(rows).toEqual([{ segment_id: segment.id }]);

    const polled = await stack.api.get(`/v1/audience-segments/${upperSegment}/entries/batch/${job.body.job_id.toUpperCase()}`, {
      key: project.keys.service,
    });
    expect(polled.status).toBe(200);
    expect(polled.body.job_id).toBe(job.body.job_id);
    const entries = await stack.api.get(`/v1/audience-segments/${upperSegment}/entries`, { key: project.keys.service });
    expect(entries.body.results.map((entry: { identifier: string }) => entry.identifier)).toEqual([evmAddress(7)]);
    const dashboard = await stack.api.get(`/api/v1/projects/${project.id.toUpperCase()}/audiences/${upperSegment}`, { key: project.keys.admin });
    expect(dashboard.body.id).toBe(segment.id);

    const key = await stack.api.post(`/api/v1/projects/${project.id}/api-keys`, {
      key: project.keys.admin,
      body: { role: 'read_only', name: 'temporary' },
    });
    const revoked = await stack.api.delete(`/api/v1/projects/${project.id}/api-keys/${key.body.id.toUpperCase()}`, { key: project.keys.admin });
    expect(revoked.status).toBe(204);
    expect((await stack.api.get('/v1/audiences/audience-segments', { key: key.body.key })).status).toBe(401);
  });

  it('makes the affiliate list’s q canonical as an identifier prefix: a wallet pasted with its checksum letter case finds it, whole or in part', async () => {
    const other = await createProject(stack);
    const key = other.keys.admin;
    const { getAddress } = await import('viem');
    const checksummed = (() => {
      for (;;) {
        const address = getAddress(randomEvmAddress());
        if (address !== address.toLowerCase()) return address;
      }
    })();
    const solana = '7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV';
    const affiliates = `/api/v1/projects/${other.id}/affiliates`;
    for (const [identifier, identifier_type, name] of [
      [checksummed, 'evm_address', 'Checksum Carl'],
      [solana, 'solana_address', 'Solana Sol'],
      ['Mixed.Case@Example.COM', 'email', 'Mail Mia'],
    ]) {
      expect((await stack.api.post(affiliates, { key, body: { identifier, identifier_type, name } })).status).toBe(201);
    }
    const names = async (q: string) => {
      const response = await stack.api.get(`${affiliates}?q=${encodeURIComponent(q)}`, { key });
      expect(response.status).toBe(200);
      return response.body.results.map((item: { name: string }) => item.name);
    };
    expect(await names(checksummed)).toEqual(['Checksum Carl']);
    expect(await names(` ${checksummed.slice(0, 12)} `)).toEqual(['Checksum Carl']);
    expect(await names(checksummed.toUpperCase().replace('0X', '0x'))).toEqual(['Checksum Carl']);
    expect(await names('MIXED.case@')).toEqual(['Mail Mia']);
    // A case-sensitive type's identifier keeps its letter case: its own spelling finds it, another does not.
    expect(await names(solana.slice(0, 10))).toEqual(['Solana Sol']);
    expect(await names(solana.slice(0, 10).toLowerCase())).toEqual([]);
    // Names are matched in any letter case, as before.
    expect(await names('CHECKSUM c')).toEqual(['Checksum Carl']);
  });

  it('makes user identifiers canonical for their type in bodies, queries and paths', async () => {
    const segment = await createSegment(stack, project);
    const added = await stack.api.post(`/api/v1/projects/${project.id}/audiences/${segment.id}/entries`, {
      key: project.keys.admin,
      body: { identifier: 'Alice@Example.COM', identifier_type: 'email' },
    });
    expect(added.status).toBe(201);
    expect(added.body.identifier).toBe('alice@example.com');

    const lookup = await stack.api.get('/v1/audiences/audience-segments/user?user_identifier=ALICE@example.com&user_identifier_type=email', {
      key: project.keys.service,
    });
    expect(lookup.body.results.map((audience: { id: string }) => audience.id)).toEqual([segment.id]);

    const removed = await stack.api.delete(`/v1/audience-segments/${segment.id}/entries/aLiCe@EXAMPLE.com?user_identifier_type=email`, {
      key: project.keys.service,
    });
    expect(removed.status).toBe(204);
  });
});
