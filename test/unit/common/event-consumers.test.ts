import { EVENT_CONSUMER_LIST } from '../../../services/platform/events/consumers';
import { EVENT_TYPES } from '../../../services/platform/events/contracts';
import { consumerJob } from '../../../services/platform/outbox/consumer';
import { CATALOG } from '../../../services/platform/service-catalog';
import { SERVICE_MANIFESTS } from '../../../services/manifests';

/**
 * Producers relay by the list of consumers (services/platform/events/consumers.ts): an entry whose
 * service does not run its queue would pile events up in Redis unread, one naming an unknown event
 * type would never receive anything.
 */
describe('the list of event consumers', () => {
  it('names each consumer once, for a service of the catalog and event types of the contracts', () => {
    const problems: string[] = [];
    const services = new Set(CATALOG.map((service) => service.name));
    const names = EVENT_CONSUMER_LIST.map((consumer) => consumer.name);
    for (const consumer of EVENT_CONSUMER_LIST) {
      if (names.filter((name) => name === consumer.name).length > 1) problems.push(`${consumer.name} is listed twice`);
      if (!/^[a-z][a-z0-9-]*$/.test(consumer.name)) problems.push(`${consumer.name} is no lowercase-dashed name (it names a queue)`);
      if (!services.has(consumer.service as never)) problems.push(`${consumer.name} names ${consumer.service}, which is no service`);
      for (const type of consumer.eventTypes)
        if (!EVENT_TYPES.includes(type)) problems.push(`${consumer.name} consumes ${type}, which no contract describes`);
      if (consumer.eventTypes.length === 0) problems.push(`${consumer.name} consumes nothing`);
    }
    expect(problems).toEqual([]);
  });

  it('is run by the service each consumer names: its queue is a job of that service’s manifest', () => {
    const problems: string[] = [];
    for (const manifest of SERVICE_MANIFESTS) {
      const queues = manifest.jobs.map((job) => job.queue);
      for (const consumer of EVENT_CONSUMER_LIST.filter((entry) => entry.service === manifest.service.name)) {
        if (!queues.includes(consumerJob(consumer).queue))
          problems.push(`${manifest.service.name} does not run ${consumer.name} (${consumerJob(consumer).queue})`);
      }
      for (const queue of queues.filter((name) => name.startsWith('events-'))) {
        if (!EVENT_CONSUMER_LIST.some((consumer) => consumerJob(consumer).queue === queue && consumer.service === manifest.service.name)) {
          problems.push(`${manifest.service.name} runs ${queue}, which no listed consumer of it names`);
        }
      }
    }
    expect(problems).toEqual([]);
  });
});
