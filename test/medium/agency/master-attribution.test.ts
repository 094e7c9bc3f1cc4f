import { type AgencyHarness, startAgencyDomain } from '../../helpers/agency-domain';
import { actor, newAffiliate, newProject, newUser, userOf } from './program-fixtures';

const START = Date.parse('2026-11-21T12:00:00.000Z');
const HOUR = 3_600_000;
const at = (hours: number, ms = 0) => new Date(START + hours * HOUR + ms);

/**
 * Attribution is frozen per conversion (docs/architecture.md): for a conversion at `at`, ResolveAttribution
 * names the master the referring affiliate was bound to then and the spread in force then, however
 * bindings, spreads and designations changed before or after. Each period is [from, to).
 */
describe('master and spread at a moment (attribution, domain)', () => {
  let harness: AgencyHarness;
  beforeAll(async () => {
    harness = await startAgencyDomain();
  });
  afterAll(() => harness.stop());

  it('finds the binding and the spread of each moment through bind, spread change, unbind, rebind and removal', async () => {
    const projectId = newProject();
    harness.clock.set(at(0));
    const [master, other, sub] = [
      await newAffiliate(harness, projectId),
      await newAffiliate(harness, projectId),
      await newAffiliate(harness, projectId),
    ];
    const user = newUser();
    await harness.domain.referrals.refer(projectId, user, sub.codes[0]!.code);
    await harness.domain.masters.designate(projectId, userOf(master), 500, actor);
    await harness.domain.masters.designate(projectId, userOf(other), 900, actor);

    harness.clock.set(at(1));
    await harness.domain.masters.bind(projectId, master.id, [userOf(sub)], actor);
    harness.clock.set(at(2));
    await harness.domain.masters.updateSpread(projectId, master.id, 800, actor);
    harness.clock.set(at(3));
    await harness.domain.masters.unbind(projectId, master.id, userOf(sub), actor);
    harness.clock.set(at(4));
    await harness.domain.masters.bind(projectId, other.id, [userOf(sub)], actor);
    harness.clock.set(at(5));
    await harness.domain.masters.remove(projectId, other.id, actor);

    const moments = [at(0, 1), at(1, -1), at(1), at(2, -1), at(2), at(3, -1), at(3), at(4), at(5, -1), at(5), at(6)];
    const results = await harness.domain.attribution.resolveBatch(
      projectId,
      moments.map((moment) => ({ user, at: moment })),
    );
    const masterAndSpread = results.map((result) =>
      'error' in result ? result.error.code : [result.outcome, result.master?.id ?? null, result.spreadBps],
    );
    expect(masterAndSpread).toEqual([
      ['attributed', null, 0],
      ['attributed', null, 0],
      ['attributed', master.id, 500],
      ['attributed', master.id, 500],
      ['attributed', master.id, 800],
      ['attributed', master.id, 800],
      ['attributed', null, 0],
      ['attributed', other.id, 900],
      ['attributed', other.id, 900],
      ['attributed', null, 0],
      ['attributed', null, 0],
    ]);
    const one = await harness.domain.attribution.resolveOne(projectId, { user, at: at(2) });
    expect(one).toMatchObject({ affiliate: { id: sub.id }, master: { id: master.id, user: master.user }, spreadBps: 800 });
  });

  it('pays a sub-affiliate’s master until the sub-affiliate is designated a master itself, and nobody above it after', async () => {
    const projectId = newProject();
    harness.clock.set(at(0));
    const [old, sub] = [await newAffiliate(harness, projectId), await newAffiliate(harness, projectId)];
    const user = newUser();
    await harness.domain.referrals.refer(projectId, user, sub.codes[0]!.code);
    await harness.domain.masters.designate(projectId, userOf(old), 400, actor);
    await harness.domain.masters.bind(projectId, old.id, [userOf(sub)], actor);
    harness.clock.set(at(1));
    await harness.domain.masters.designate(projectId, userOf(sub), 700, actor);

    const results = await harness.domain.attribution.resolveBatch(
      projectId,
      [at(1, -1), at(1), at(2)].map((moment) => ({ user, at: moment })),
    );
    expect(
      results.map((result) => ('error' in result ? result.error.code : [result.affiliate?.id, result.master?.id ?? null, result.spreadBps])),
    ).toEqual([
      [sub.id, old.id, 400],
      [sub.id, null, 0],
      [sub.id, null, 0],
    ]);
  });

  it('pays no master that was suspended at the moment, and the master again once reactivated', async () => {
    const projectId = newProject();
    harness.clock.set(at(10));
    const [master, sub] = [await newAffiliate(harness, projectId), await newAffiliate(harness, projectId)];
    const user = newUser();
    await harness.domain.referrals.refer(projectId, user, sub.codes[0]!.code);
    await harness.domain.masters.designate(projectId, userOf(master), 300, actor);
    await harness.domain.masters.bind(projectId, master.id, [userOf(sub)], actor);
    harness.clock.set(at(11));
    await harness.domain.affiliates.suspend(projectId, userOf(master), 'Fraud review', actor.apiKeyId);
    harness.clock.set(at(12));
    await harness.domain.affiliates.reactivate(projectId, userOf(master), actor.apiKeyId);

    const results = await harness.domain.attribution.resolveBatch(
      projectId,
      [at(10, 1), at(11), at(12, -1), at(12)].map((moment) => ({ user, at: moment })),
    );
    expect(results.map((result) => ('error' in result ? result.error.code : [result.outcome, result.master?.id ?? null, result.spreadBps]))).toEqual([
      ['attributed', master.id, 300],
      ['attributed', null, 0],
      ['attributed', null, 0],
      ['attributed', master.id, 300],
    ]);
  });

  it('names the master of a suspended sub-affiliate but its outcome pays nobody', async () => {
    const projectId = newProject();
    harness.clock.set(at(20));
    const [master, sub] = [await newAffiliate(harness, projectId), await newAffiliate(harness, projectId)];
    const user = newUser();
    await harness.domain.referrals.refer(projectId, user, sub.codes[0]!.code);
    await harness.domain.masters.designate(projectId, userOf(master), 300, actor);
    await harness.domain.masters.bind(projectId, master.id, [userOf(sub)], actor);
    await harness.domain.affiliates.suspend(projectId, userOf(sub), 'Fraud review', actor.apiKeyId);
    expect(await harness.domain.attribution.resolveOne(projectId, { user, at: at(21) })).toMatchObject({
      outcome: 'affiliate_suspended',
      affiliate: { id: sub.id },
      master: { id: master.id },
      spreadBps: 300,
    });
  });
});
