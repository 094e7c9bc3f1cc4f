import { screenshotSources } from '../../../scripts/screenshots/sources';

describe('where the documentation’s screenshots come from (npm run screenshots)', () => {
  it('splits each linked screenshot into the longest captured flow and the capture’s name, once each', () => {
    const markdown = [
      '| ![A](screenshots/admin-webhooks-06-webhook-resent.png) | ![B](screenshots/admin-04-audience-uploaded.png) |',
      '![C](screenshots/portal-04-stats.png) ![again](screenshots/portal-04-stats.png) [not a picture](other/x.png)',
    ].join('\n');
    const flows = new Set(['admin', 'admin-webhooks', 'portal']);
    expect(screenshotSources(markdown, (flow) => flows.has(flow))).toEqual([
      { target: 'admin-webhooks-06-webhook-resent.png', flow: 'admin-webhooks', name: '06-webhook-resent' },
      { target: 'admin-04-audience-uploaded.png', flow: 'admin', name: '04-audience-uploaded' },
      { target: 'portal-04-stats.png', flow: 'portal', name: '04-stats' },
    ]);
  });
});
