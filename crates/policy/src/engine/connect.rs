//! Fetches decided again where they connect: with the addresses their host
//! name resolved to.
//!
//! The engine does no network, so a rule on an address (`ip:10.0.0.0/8`,
//! `domain:127.0.0.1`) can only meet a host name once the fetching tool has
//! resolved it. The tool resolves once, asks here, and connects to exactly
//! the addresses decided on, so that a name pointing at a denied address
//! (or re-pointed between the check and the connection) never reaches it.

use std::net::IpAddr;

use crate::actions::{Item, Via, What};
use crate::call::Call;
use crate::decision::Decision;
use crate::effect::Effect;
use crate::policy::Policy;
use crate::urls::UrlHost;

use super::Context;

/// Where a fetch is about to connect.
#[derive(Debug, Clone, Copy)]
pub(super) struct Connection<'a> {
    /// The host name as the fetching client parsed it.
    pub host: &'a str,
    /// The addresses it resolved to.
    pub addrs: &'a [IpAddr],
}

impl Connection<'_> {
    /// Adds the connection's host and addresses to the hosts of the call's
    /// own fetches: host rules then meet the name and every address. The
    /// fetches whose host is the one connected to, or every fetch of the
    /// call when none is (the client read the URL differently).
    pub(super) fn apply(&self, items: &mut [Item]) {
        let named = UrlHost::parse(self.host);
        let reaches = |item: &Item| match (&item.via, &item.what) {
            (Via::Direct, What::Fetch { target: Ok(t), .. }) => {
                named.as_ref().is_some_and(|h| t.hosts.contains(h))
            }
            _ => false,
        };
        let any = items.iter().any(reaches);
        for item in items.iter_mut() {
            if any && !reaches(item) {
                continue;
            }
            if let (Via::Direct, What::Fetch { target: Ok(t), .. }) = (&item.via, &mut item.what) {
                let extra = named.iter().cloned().chain(
                    self.addrs
                        .iter()
                        .flat_map(|a| UrlHost::from_ip(*a).reached()),
                );
                for h in extra {
                    if !t.hosts.contains(&h) {
                        t.hosts.push(h);
                    }
                }
            }
        }
    }
}

impl Policy {
    /// Decides a fetch call as it is about to connect to `host` (the name
    /// as the fetching client parsed it) at `addrs` (what that name
    /// resolved to): host rules meet the name and every address, so that
    /// `deny WebFetch(ip:169.254.169.254/32)` holds for a name that
    /// resolves there.
    pub fn decide_connection(
        &self,
        call: &Call,
        host: &str,
        addrs: &[IpAddr],
        ctx: &Context<'_>,
    ) -> Decision {
        self.decide_with(call, ctx, Some(Connection { host, addrs }))
    }

    /// Whether a fetch that was decided (and, on ask, approved) may connect
    /// to `addrs`: `Ok` when the connection is not denied and decides no
    /// stricter than the call did, else that decision, whose reason says
    /// why. An ask that only the addresses raise blocks too: no one
    /// approved it.
    pub fn check_connection(
        &self,
        call: &Call,
        host: &str,
        addrs: &[IpAddr],
        ctx: &Context<'_>,
    ) -> Result<(), Box<Decision>> {
        let before = self.decide_in(call, ctx).decision;
        let at = self.decide_connection(call, host, addrs, ctx);
        if at.decision == Effect::Deny || at.decision > before {
            Err(Box::new(at))
        } else {
            Ok(())
        }
    }
}
