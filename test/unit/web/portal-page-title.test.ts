import { portalDocumentTitle, portalScreenTitle } from '../../../web/src/portal/page-title';

describe('portal tab titles', () => {
  it('names each screen as its navigation does, and an unknown path as not found', () => {
    expect(portalScreenTitle('claims')).toBe('Claims');
    expect(portalScreenTitle('/codes/')).toBe('Referral codes');
    expect(portalScreenTitle('nowhere')).toBe('Page not found');
  });

  it('puts the program between the screen and the portal once it is known', () => {
    expect(portalDocumentTitle('Claims')).toBe('Claims · Affiliate portal');
    expect(portalDocumentTitle('Claims', 'Acme')).toBe('Claims · Acme · Affiliate portal');
  });
});
